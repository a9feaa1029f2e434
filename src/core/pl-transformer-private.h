/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-transformer.h"

G_BEGIN_DECLS

gboolean pl_transformer_family_has_forward (PlFamily family);

G_END_DECLS
