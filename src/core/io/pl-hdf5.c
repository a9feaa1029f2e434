/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <H5PLpublic.h>

#include "pl-error.h"
#include "pl-hdf5.h"

static GRecMutex hdf5_mutex;
static hid_t hard_links_lapl = H5I_INVALID_HID;
static hid_t hard_links_dapl = H5I_INVALID_HID;

static herr_t
refuse_external_link (const char   *parent_file,
                      const char   *parent_group,
                      const char   *target_file,
                      const char   *target_obj,
                      unsigned     *acc_flags,
                      hid_t         fapl,
                      void         *user_data)
{
  /* Never open another file because a checkpoint points at it. */
  return -1;
}

void
pl_hdf5_init (void)
{
  static gsize initialised = 0;

  if (g_once_init_enter (&initialised))
    {
      g_rec_mutex_lock (&hdf5_mutex);
      H5open ();
      H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
      H5PLset_loading_state (0);
      hard_links_lapl = H5Pcreate (H5P_LINK_ACCESS);
      H5Pset_nlinks (hard_links_lapl, 0);
      H5Pset_elink_cb (hard_links_lapl, refuse_external_link, NULL);
      hard_links_dapl = H5Pcreate (H5P_DATASET_ACCESS);
      H5Pset_nlinks (hard_links_dapl, 0);
      H5Pset_elink_cb (hard_links_dapl, refuse_external_link, NULL);
      g_rec_mutex_unlock (&hdf5_mutex);
      g_once_init_leave (&initialised, 1);
    }
}

void
pl_hdf5_lock (void)
{
  pl_hdf5_init ();
  g_rec_mutex_lock (&hdf5_mutex);
}

void
pl_hdf5_unlock (void)
{
  g_rec_mutex_unlock (&hdf5_mutex);
}

hid_t
pl_hdf5_link_access (void)
{
  pl_hdf5_init ();
  return hard_links_lapl;
}

hid_t
pl_hdf5_dataset_access (void)
{
  pl_hdf5_init ();
  return hard_links_dapl;
}

typedef struct
{
  char *desc;
} InnermostError;

static herr_t
collect_error (unsigned           n,
               const H5E_error2_t *err,
               void               *data)
{
  InnermostError *out = data;

  /* Walked from the innermost frame outwards: the first one says what went
   * wrong in the file, the later ones which API call noticed. */
  if (out->desc == NULL && err->desc != NULL && err->desc[0] != '\0')
    out->desc = g_strdup (err->desc);
  return 0;
}

void
pl_hdf5_set_error (GError     **error,
                   int          code,
                   const char  *file,
                   const char  *format,
                   ...)
{
  InnermostError inner = { NULL };
  g_autofree char *what = NULL;
  va_list ap;

  va_start (ap, format);
  what = g_strdup_vprintf (format, ap);
  va_end (ap);

  H5Ewalk2 (H5E_DEFAULT, H5E_WALK_UPWARD, collect_error, &inner);
  H5Eclear2 (H5E_DEFAULT);

  if (inner.desc != NULL)
    g_set_error (error, PL_ERROR, code, "%s: %s (HDF5: %s)",
                 file ? file : "HDF5", what, inner.desc);
  else
    g_set_error (error, PL_ERROR, code, "%s: %s", file ? file : "HDF5", what);
  g_free (inner.desc);
}
