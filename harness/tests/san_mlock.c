/*
 * san_mlock.c - linked into every program of a SAN=1 build (Makefile), ahead
 * of the sanitizer runtime: mlock, munlock, mlockall and munlockall as the
 * kernel's system calls.
 *
 * ASan (and the other sanitizers of compiler-rt) intercept these four and
 * return 0 without locking anything (sanitizer_common_interceptors.inc,
 * MlockIsUnsupported), so under SAN=1 lab-01's VmLck and Mlocked would not
 * move and its 01.7 control region would have no page present: the sanitized
 * build would test a machine where locking is a silent no-op.  A definition
 * in the executable comes before the runtime's in symbol lookup, so these
 * replace the interceptors; the sanitizers lose nothing they check here.
 */
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

int mlock(const void *addr, size_t len);
int munlock(const void *addr, size_t len);
int mlockall(int flags);
int munlockall(void);

int mlock(const void *addr, size_t len)
{
	return (int)syscall(SYS_mlock, addr, len);
}

int munlock(const void *addr, size_t len)
{
	return (int)syscall(SYS_munlock, addr, len);
}

int mlockall(int flags)
{
	return (int)syscall(SYS_mlockall, flags);
}

int munlockall(void)
{
	return (int)syscall(SYS_munlockall);
}
