/* Idioms of C with one definition each: the struct a member is embedded
 * in (container_of), the number of elements of an array (ARRAY_SIZE), a
 * constant spelled in a message (STRINGIFY). */
#ifndef IOMMON_MACROS_H
#define IOMMON_MACROS_H

#include <stddef.h>

/* The `type` whose `member` ptr points to. The member's type is checked,
 * so a pointer to something else does not compile; nothing depends on
 * where in `type` the member sits. */
#define container_of(ptr, type, member)                                                                           \
	__extension__({                                                                                           \
		_Static_assert(__builtin_types_compatible_p(__typeof__(*(ptr)), __typeof__(((type *)0)->member)), \
			       "container_of: " #ptr " is not a " #type "'s " #member);                           \
		(type *)(void *)((char *)(ptr)-offsetof(type, member));                                           \
	})

/* Of an array, not a pointer (-Wsizeof-pointer-div, in -Wall, says so). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A macro's value, expanded, as a string literal: a message that says a
 * deadline passed quotes its constant ("within " STRINGIFY(X_MS) " ms")
 * and cannot drift from it. */
#define STRINGIFY(x) STRINGIFY_(x)
#define STRINGIFY_(x) #x

#endif
