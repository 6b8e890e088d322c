/*
 * errata_text.S - answers/errata.md built into the library, so that a lab
 * run on its own checks its contradictions against the same errata as the
 * runner (errata_builtin in errata.c).  Assembled from the repository's
 * root, where make runs.
 */
	.section .rodata
	.globl dmalab_errata_text
	.type dmalab_errata_text, @object
dmalab_errata_text:
	.incbin "answers/errata.md"
	.byte 0
	.size dmalab_errata_text, . - dmalab_errata_text
	.section .note.GNU-stack,"",@progbits
