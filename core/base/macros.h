/* Two idioms of C with one definition each: the struct a member is
 * embedded in (container_of), and the number of elements of an array
 * (ARRAY_SIZE). */
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

#endif
