/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-model-private.h"

/* WEIGHT of every expert of LAYER, one after the other, each as stored:
 * the rows of expert 0, then of expert 1, … (all alike, or refused). Every
 * expert's tensor is found before anything is allocated, so a config.json
 * claiming more experts than the file holds costs nothing. */
PlStoredMatrix *
pl_model_read_experts_weight (PlModel   *self,
                              PlWeight   weight,
                              int        layer,
                              GError   **error)
{
  const char *path = pl_checkpoint_get_path (self->checkpoint);
  guint n = self->decoder.n_experts;
  g_autoptr(PlStoredMatrix) out = NULL;
  gsize unit = 0;

  if (n == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "%s: this %s model has no experts", path,
                   self->desc->display_name);
      return NULL;
    }
  for (guint e = 0; e < n; e++)
    {
      gboolean kernel = FALSE;
      const PlTensorInfo *info = pl_model_find_expert (self, weight, layer, e, &kernel);

      if (info == NULL)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND, "%s: this %s checkpoint has no “%s%s%d.%s%u.%s”",
                       path, self->desc->display_name, self->prefix, self->desc->layer_list, layer,
                       self->desc->expert_list, e, self->desc->roles[weight]);
          return NULL;
        }
      if (info->rank != 2 || kernel)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: “%s” should be an nn.Linear weight, [out, in]",
                       path, info->name);
          return NULL;
        }
    }
  for (guint e = 0; e < n; e++)
    {
      g_autoptr(PlStoredMatrix) m = NULL;
      const PlTensorInfo *info = pl_model_find_expert (self, weight, layer, e, NULL);

      if (!(m = pl_checkpoint_read_stored (self->checkpoint, info->name, error)))
        return NULL;
      if (out == NULL)
        {
          if (m->rows > G_MAXSIZE / n || !(out = pl_stored_matrix_try_new (m->type, m->rows * n, m->cols, error)))
            {
              if (out == NULL && error != NULL && *error == NULL)
                g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE, "%s: %u experts of “%s” are too large",
                             path, n, info->name);
              return NULL;
            }
          unit = m->rows * m->cols * pl_stored_type_size (m->type);
        }
      else if (m->rows * n != out->rows || m->cols != out->cols || m->type != out->type)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: “%s” is not shaped and typed as expert 0’s (%" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT ")",
                       path, info->name, out->rows / n, out->cols);
          return NULL;
        }
      memcpy (out->data + e * unit, m->data, unit);
    }
  return g_steal_pointer (&out);
}
