/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-error.h"

G_DEFINE_QUARK (pl-error-quark, pl_error)
