/*
 * messages_text.S - answers/messages.zh.md, the Chinese message table,
 * built into the library (lang.c) the way errata_text.S builds in the
 * errata, so that a lab run on its own speaks the same words.  Assembled
 * from the repository's root, where make runs.
 */
	.section .rodata
	.globl dmalab_messages_zh
	.type dmalab_messages_zh, @object
dmalab_messages_zh:
	.incbin "answers/messages.zh.md"
	.byte 0
	.size dmalab_messages_zh, . - dmalab_messages_zh
	.section .note.GNU-stack,"",@progbits
