/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Whether a long computation looks at its cancellable while it works,
 * counted in looks instead of timed: a loaded machine changes when a look
 * happens, not how many there are. Work between two looks is about a run's
 * share of the looks; what comes after a cancel (skipping what is left)
 * may look again, so the looks after it are reported, not bounded.
 *
 * An executable that calls pl_test_assert_cancels links this file, and its
 * definitions of g_cancellable_is_cancelled and
 * g_cancellable_set_error_if_cancelled take the place of GIO's for the
 * code linked into it (a definition in the executable wins over a shared
 * library's). They answer as GIO's do; on the watched cancellable they also
 * count the looks and cancel it at the chosen one. */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>

#include "pl-test-util.h"

static GCancellable *watched;
static gint n_looks;
static gint cancel_at;   /* 0: never */

gboolean
g_cancellable_is_cancelled (GCancellable *cancellable)
{
  static gpointer gio_function;
  gboolean (*gio_is_cancelled) (GCancellable *);

  /* Two threads may both look it up: the same answer. */
  if (g_atomic_pointer_get (&gio_function) == NULL)
    g_atomic_pointer_set (&gio_function, dlsym (RTLD_NEXT, "g_cancellable_is_cancelled"));
  gio_is_cancelled = (gboolean (*) (GCancellable *)) g_atomic_pointer_get (&gio_function);
  if (cancellable != NULL && cancellable == g_atomic_pointer_get (&watched) &&
      g_atomic_int_add (&n_looks, 1) + 1 == g_atomic_int_get (&cancel_at))
    g_cancellable_cancel (cancellable);
  return gio_is_cancelled (cancellable);
}

gboolean
g_cancellable_set_error_if_cancelled (GCancellable  *cancellable,
                                      GError       **error)
{
  if (!g_cancellable_is_cancelled (cancellable))
    return FALSE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
  return TRUE;
}

/* Runs FUNC (DATA) with a fresh cancellable, cancelled at its CANCEL_AT-th
 * look (0: never); returns how often it looked. */
static gint
count_looks (PlTestCancellableFunc   func,
             gpointer                data,
             gint                    at,
             gboolean               *ok,
             GError                **error)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  g_atomic_int_set (&n_looks, 0);
  g_atomic_int_set (&cancel_at, at);
  g_atomic_pointer_set (&watched, cancellable);
  *ok = func (data, cancellable, error);
  g_atomic_pointer_set (&watched, NULL);
  return g_atomic_int_get (&n_looks);
}

void
pl_test_assert_cancels (PlTestCancellableFunc func,
                        gpointer              data)
{
  g_autoptr(GError) error = NULL;
  gboolean ok;
  gint whole, cancelled;

  whole = count_looks (func, data, 0, &ok, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpint (whole, >=, 3);

  cancelled = count_looks (func, data, whole / 2, &ok, &error);
  g_test_message ("a whole run looked at its cancellable %d times; cancelled at look %d, it returned after %d",
                  whole, whole / 2, cancelled);
  g_assert_false (ok);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}
