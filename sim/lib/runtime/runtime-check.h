/*
 * runtime-check.h: runtime-check.c's part: check mode, the invariants after every command.
 */
#ifndef REMATSIM_RUNTIME_CHECK_H
#define REMATSIM_RUNTIME_CHECK_H

#include "runtime-state.h"

void rt_check_state(struct runtime_state *rt);

#endif
