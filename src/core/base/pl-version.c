/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "pl-version.h"
#include "pl-version-commit.h"

const char *
pl_version (void)
{
  /* A build from a checkout is the release it follows plus its commit. */
  return PL_VERSION_COMMIT[0] != '\0' ? PACKAGE_VERSION "+" PL_VERSION_COMMIT : PACKAGE_VERSION;
}
