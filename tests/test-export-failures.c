/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pl-error.h"
#include "pl-figure.h"
#include "pl-matrix-io.h"
#include "pl-test-util.h"

/* A failed export (disk full, read-only folder) says why, naming the file,
 * and leaves the old file as it was, with no temporary file beside it: for
 * the figures (PNG, SVG, PDF) and for the CLI's numeric outputs (HDF5, CSV,
 * NPY). A full disk is a 64 KiB tmpfs when the tests run as root, else a
 * file size limit (RLIMIT_FSIZE, EFBIG); a read-only folder is a read-only
 * tmpfs as root, else a folder without write permission. */

#define OLD_CONTENT "precious"
#define SMALL_FS "size=64k"

typedef struct
{
  char         *dir;
  gboolean      mounted;
  struct rlimit saved;
  gboolean      limited;
  int           expected_errno;
} Place;

static gboolean
try_mount (const char *dir,
           gulong      flags,
           const char *options)
{
  /* POSLENS_TEST_NO_MOUNT tries the other way as root too. */
  return geteuid () == 0 && g_getenv ("POSLENS_TEST_NO_MOUNT") == NULL &&
         mount ("tmpfs", dir, "tmpfs", flags, options) == 0;
}

static void
write_old (const char *dir,
           const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, OLD_CONTENT, -1, &error);
  g_assert_no_error (error);
}

/* A folder holding NAME (the old file), where writing more than a few KiB
 * fails. */
static void
place_full (Place      *place,
            const char *name)
{
  place->dir = pl_test_tmpdir ();
  place->mounted = try_mount (place->dir, 0, SMALL_FS);
  write_old (place->dir, name);
  if (place->mounted)
    place->expected_errno = ENOSPC;
  else
    {
      struct rlimit small;

      signal (SIGXFSZ, SIG_IGN);
      g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &place->saved), ==, 0);
      small = place->saved;
      small.rlim_cur = 64 * 1024;
      g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);
      place->limited = TRUE;
      place->expected_errno = EFBIG;
    }
}

/* A folder holding NAME where nothing can be created. */
static void
place_read_only (Place      *place,
                 const char *name)
{
  place->dir = pl_test_tmpdir ();
  if ((place->mounted = try_mount (place->dir, 0, SMALL_FS)))
    {
      write_old (place->dir, name);
      g_assert_cmpint (mount ("tmpfs", place->dir, "tmpfs", MS_REMOUNT | MS_RDONLY, SMALL_FS), ==, 0);
      place->expected_errno = EROFS;
    }
  else
    {
      write_old (place->dir, name);
      g_assert_cmpint (g_chmod (place->dir, 0555), ==, 0);
      place->expected_errno = EACCES;
    }
}

/* Root without the right to mount may write anywhere: nothing to test. */
static gboolean
can_make_read_only (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  gboolean ok = geteuid () != 0 || try_mount (dir, 0, SMALL_FS);

  if (ok && geteuid () == 0)
    umount (dir);
  pl_test_rmtree (dir);
  if (!ok)
    g_test_skip ("root without mount(2): a read-only folder cannot be made");
  return ok;
}

/* The old file is as it was, alone in its folder; then the place goes. */
static void
place_check_and_clear (Place      *place,
                       const char *name)
{
  g_autofree char *path = g_build_filename (place->dir, name, NULL);
  g_autofree char *content = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *entry;

  if (place->limited)
    g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &place->saved), ==, 0);
  g_assert_true (g_file_get_contents (path, &content, NULL, NULL));
  g_assert_cmpstr (content, ==, OLD_CONTENT);
  dir = g_dir_open (place->dir, 0, NULL);
  while ((entry = g_dir_read_name (dir)) != NULL)
    g_assert_cmpstr (entry, ==, name);
  g_clear_pointer (&dir, g_dir_close);   /* else the mount is busy */
  if (place->mounted)
    g_assert_cmpint (umount (place->dir), ==, 0);
  else
    g_chmod (place->dir, 0755);
  pl_test_rmtree (place->dir);
  g_free (place->dir);
}

/* The message names the file and the reason the system gave. */
static void
assert_says_why (const GError *error,
                 const char   *name,
                 const Place  *place)
{
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, name));
  g_assert_nonnull (strstr (error->message, g_strerror (place->expected_errno)));
}

/* Values that do not compress: every format needs well over 64 KiB. */
static PlMatrix *
noise (guint rows,
       guint cols)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (9);
  PlMatrix *m = pl_matrix_new (rows, cols);

  for (gsize i = 0; i < (gsize) rows * cols; i++)
    m->data[i] = (float) g_rand_double_range (rand, -1, 1);
  return m;
}

static void
check_figure (const char *name,
              gboolean    full)
{
  g_autoptr(PlMatrix) m = noise (256, 256);
  g_autoptr(PlFigure) figure = pl_figure_new_heatmap (m, 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  Place place = { NULL };

  if (full)
    place_full (&place, name);
  else
    place_read_only (&place, name);
  path = g_build_filename (place.dir, name, NULL);
  g_assert_false (pl_figure_export (figure, path, 600, 600, 144, &error));
  assert_says_why (error, name, &place);
  place_check_and_clear (&place, name);
}

static void
check_matrix (const char *name,
              gboolean    full)
{
  g_autoptr(PlMatrix) m = noise (200, 200);
  g_autoptr(PlMatrix) v = noise (1, 200);
  const PlNamedMatrix datasets[] = { { "/projection", m, FALSE }, { "/explained_variance_ratio", v, TRUE } };
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  Place place = { NULL };

  if (full)
    place_full (&place, name);
  else
    place_read_only (&place, name);
  path = g_build_filename (place.dir, name, NULL);
  g_assert_false (pl_matrix_io_write (path, datasets, G_N_ELEMENTS (datasets), &error));
  assert_says_why (error, name, &place);
  place_check_and_clear (&place, name);
}

static void
test_figure_full (void)
{
  check_figure ("old.png", TRUE);
  check_figure ("old.svg", TRUE);
  check_figure ("old.pdf", TRUE);
}

static void
test_figure_read_only (void)
{
  if (!can_make_read_only ())
    return;
  check_figure ("old.png", FALSE);
  check_figure ("old.svg", FALSE);
  check_figure ("old.pdf", FALSE);
}

static void
test_matrix_full (void)
{
  check_matrix ("old.h5", TRUE);
  check_matrix ("old.csv", TRUE);
  check_matrix ("old.npy", TRUE);
}

static void
test_matrix_read_only (void)
{
  if (!can_make_read_only ())
    return;
  check_matrix ("old.h5", FALSE);
  check_matrix ("old.csv", FALSE);
  check_matrix ("old.npy", FALSE);
}

/* Figures whose images cairo cannot make (more than 32767 pixels a side)
 * are refused by name before anything is written, not drawn blank: a
 * heatmap of 40000 positions, a grid of maps 200 patches wide (200 maps of
 * 200 pixels and their gaps), and a multiples figure holding one; a grid
 * 180 wide (32579 pixels) still fits. */
static void
test_figure_too_large (void)
{
  g_autofree char *dir = pl_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "wide.png", NULL);
  g_autoptr(PlMatrix) long_row = pl_matrix_new (1, 40000);
  g_autoptr(PlMatrix) wide_grid = pl_matrix_new (200, 200);
  g_autoptr(PlMatrix) fitting_grid = pl_matrix_new (180, 180);
  g_autoptr(PlFigure) heatmap = pl_figure_new_heatmap (long_row, 0);
  g_autoptr(PlFigure) grid = pl_figure_new_patch_grid (wide_grid, 1, 200);
  g_autoptr(PlFigure) fitting = pl_figure_new_patch_grid (fitting_grid, 1, 180);
  g_autoptr(PlFigure) small = NULL;
  g_autoptr(PlFigure) multiples = NULL;
  g_autoptr(PlMatrix) square = pl_matrix_new (8, 8);
  g_autoptr(GError) error = NULL;

  g_assert_false (pl_figure_check_size (heatmap, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "40000 × 1 pixels"));
  g_clear_error (&error);
  g_assert_false (pl_figure_export (heatmap, path, 360, 300, 72, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  g_assert_false (pl_figure_check_size (grid, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "40199"));
  g_clear_error (&error);
  g_assert_true (pl_figure_check_size (fitting, &error));
  g_assert_no_error (error);

  small = pl_figure_new_heatmap (square, 0);
  multiples = pl_figure_new_multiples ((PlFigure * const[]) { small, heatmap }, 2, 0);
  g_assert_true (pl_figure_check_size (small, NULL));
  g_assert_false (pl_figure_check_size (multiples, &error));
  g_assert_error (error, PL_ERROR, PL_ERROR_TOO_LARGE);
  pl_test_rmtree (dir);
}

int
main (int argc, char *argv[])
{
  pl_test_init (&argc, &argv);

  g_test_add_func ("/pl/export-failures/figure-disk-full", test_figure_full);
  g_test_add_func ("/pl/export-failures/figure-read-only", test_figure_read_only);
  g_test_add_func ("/pl/export-failures/matrix-disk-full", test_matrix_full);
  g_test_add_func ("/pl/export-failures/matrix-read-only", test_matrix_read_only);
  g_test_add_func ("/pl/export-failures/figure-too-large", test_figure_too_large);
  return g_test_run ();
}
