/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-cli.h"
#include "pl-error.h"
#include "pl-hdf5.h"
#include "pl-model.h"
#include "pl-tokenizer.h"
#include "pl-transformer.h"

/* poslens-cli forward: attentions and hidden states of one input, written
 * layer by layer into HDF5 as Hugging Face's output_attentions and
 * output_hidden_states lay them out, so memory stays at one layer. */

static int
usage (const char *message)
{
  fprintf (stderr, "poslens-cli forward: %s\n", message);
  return PL_CLI_EXIT_USAGE;
}

static GArray *
parse_ids (const char  *text,
           GError     **error)
{
  g_auto(GStrv) parts = g_strsplit_set (text, ", ", -1);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (int));

  for (guint i = 0; parts[i] != NULL; i++)
    {
      gint64 v;
      int id;

      if (parts[i][0] == '\0')
        continue;
      if (!g_ascii_string_to_signed (parts[i], 10, 0, G_MAXINT32, &v, NULL))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                       "--ids: “%s” is not a token id (expected comma-separated integers ≥ 0)", parts[i]);
          g_array_unref (ids);
          return NULL;
        }
      id = (int) v;
      g_array_append_val (ids, id);
    }
  return ids;
}

/* FILE.h5:/dataset, a 1-D integer dataset (or one row of a 2-D one). */
static GArray *
read_ids (const char  *spec,
          GError     **error)
{
  const char *colon = g_strrstr (spec, ":/");
  g_autofree char *file = NULL;
  hid_t f = -1, d = -1, s = -1, t = -1;
  hsize_t dims[2] = { 0, 0 };
  int rank;
  GArray *ids = NULL;

  if (colon == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "--ids-from “%s”: expected FILE.h5:/DATASET", spec);
      return NULL;
    }
  file = g_strndup (spec, colon - spec);

  pl_hdf5_lock ();
  if ((f = H5Fopen (file, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
    pl_hdf5_set_error (error, PL_ERROR_NOT_FOUND, file, "cannot open as HDF5");
  else if ((d = H5Dopen2 (f, colon + 1, H5P_DEFAULT)) < 0)
    pl_hdf5_set_error (error, PL_ERROR_NOT_FOUND, file, "no dataset %s", colon + 1);
  else if ((t = H5Dget_type (d)) < 0 || H5Tget_class (t) != H5T_INTEGER ||
           (s = H5Dget_space (d)) < 0 ||
           (rank = H5Sget_simple_extent_ndims (s)) < 1 || rank > 2 ||
           H5Sget_simple_extent_dims (s, dims, NULL) < 0 ||
           (rank == 2 && dims[0] != 1) || dims[rank - 1] == 0 || dims[rank - 1] > (1 << 20))
    g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                 "%s: %s must hold token ids, integers in one row", file, colon + 1);
  else
    {
      hsize_t n = dims[rank - 1];

      ids = g_array_sized_new (FALSE, TRUE, sizeof (int), n);
      g_array_set_size (ids, n);
      if (H5Dread (d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ids->data) < 0)
        {
          pl_hdf5_set_error (error, PL_ERROR_CORRUPT, file, "cannot read %s", colon + 1);
          g_clear_pointer (&ids, g_array_unref);
        }
    }
  if (s >= 0) H5Sclose (s);
  if (t >= 0) H5Tclose (t);
  if (d >= 0) H5Dclose (d);
  if (f >= 0) H5Fclose (f);
  pl_hdf5_unlock ();
  return ids;
}

typedef struct
{
  const char *path;
  hid_t       file;
  hid_t       attentions;
  hid_t       hidden;
  guint       n_heads;
  guint       n_tokens;
  guint       hidden_size;
  GError     *error;
} Writer;

static hid_t
create_dataset (Writer        *w,
                const char    *name,
                int            rank,
                const hsize_t *dims)
{
  hid_t space = H5Screate_simple (rank, dims, NULL);
  hid_t d = H5Dcreate2 (w->file, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

  H5Sclose (space);
  if (d < 0 && w->error == NULL)
    pl_hdf5_set_error (&w->error, PL_ERROR_FAILED, w->path, "cannot create %s", name);
  return d;
}

/* Writes BLOCK as entry K of DATASET's first dimension. */
static void
write_block (Writer         *w,
             hid_t           dataset,
             guint           k,
             const PlMatrix *block)
{
  hid_t space = H5Dget_space (dataset);
  int rank = H5Sget_simple_extent_ndims (space);
  hsize_t dims[4], start[4] = { k, 0, 0, 0 }, count[4];
  hid_t mem;

  H5Sget_simple_extent_dims (space, dims, NULL);
  count[0] = 1;
  for (int i = 1; i < rank; i++)
    count[i] = dims[i];
  mem = H5Screate_simple (rank, count, NULL);
  if (H5Sselect_hyperslab (space, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
      H5Dwrite (dataset, H5T_NATIVE_FLOAT, mem, space, H5P_DEFAULT, block->data) < 0)
    {
      if (w->error == NULL)
        pl_hdf5_set_error (&w->error, PL_ERROR_FAILED, w->path, "cannot write layer %u", k);
    }
  H5Sclose (mem);
  H5Sclose (space);
}

static gboolean
write_layer (guint     k,
             PlMatrix *attention,
             PlMatrix *hidden,
             gpointer  user_data)
{
  Writer *w = user_data;

  pl_hdf5_lock ();
  if (w->hidden >= 0)
    write_block (w, w->hidden, k, hidden);
  if (w->attentions >= 0 && attention != NULL)
    write_block (w, w->attentions, k - 1, attention);
  pl_hdf5_unlock ();
  return w->error == NULL;
}

int
pl_cli_forward (int    argc,
                char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PlModel) model = NULL;
  g_autoptr(PlTransformer) transformer = NULL;
  g_autoptr(GArray) ids = NULL;
  g_autofree char *ids_text = NULL;
  g_autofree char *ids_from = NULL;
  g_autofree char *text = NULL;
  g_autofree char *out = NULL;
  g_autofree char *tmp = NULL;
  const PlTransformerConfig *c;
  int random_n = 0, period = 0;
  gint64 seed = 0;
  gboolean wrap = FALSE, no_attentions = FALSE, no_hidden = FALSE;
  Writer w = { NULL, -1, -1, -1, 0, 0, 0, NULL };
  gboolean ok;
  const GOptionEntry entries[] = {
    { "ids", 0, 0, G_OPTION_ARG_STRING, &ids_text, N_("Token ids, comma-separated, used as given"), N_("1,2,3") },
    { "ids-from", 0, 0, G_OPTION_ARG_FILENAME, &ids_from, N_("Token ids from an integer dataset"), N_("FILE.h5:/DATASET") },
    { "text", 0, 0, G_OPTION_ARG_STRING, &text, N_("A sentence, tokenised by the tokenizer beside the checkpoint (special tokens included)"), N_("TEXT") },
    { "random", 0, 0, G_OPTION_ARG_INT, &random_n, N_("N random ids (no special tokens; start and end ids included for BERT-style models)"), N_("N") },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, N_("Seed of --random (default 0)"), N_("S") },
    { "period", 0, 0, G_OPTION_ARG_INT, &period, N_("With --random: one random segment of P ids, repeated"), N_("P") },
    { "wrap", 0, 0, G_OPTION_ARG_NONE, &wrap, N_("Put the model’s start and end ids around --ids / --ids-from"), NULL },
    { "no-attentions", 0, 0, G_OPTION_ARG_NONE, &no_attentions, N_("Do not write /attentions"), NULL },
    { "no-hidden-states", 0, 0, G_OPTION_ARG_NONE, &no_hidden, N_("Do not write /hidden_states"), NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Output HDF5 file"), N_("FILE.h5") },
    { NULL }
  };

  context = g_option_context_new (_("PATH — run the model on one input, write its attentions and hidden states"));
  g_option_context_set_description (context,
    _("Writes /input_ids [T], /attentions [layers, heads, T, T] and /hidden_states [layers + 1, T, hidden]\n"
      "(hidden_states[0] is the embedding output; GPT-2's last is after ln_f), float32, as Hugging Face's\n"
      "output_attentions and output_hidden_states.\n"
      "--text needs the model’s tokenizer files beside it (tokenizer.json, vocab.txt, vocab.json + merges.txt,\n"
      "or Poslens’ byte tokenizer in tokenizer_config.json); its ids already hold [CLS]/[SEP] or <s>/</s>."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage (error->message);
  if (argc != 2)
    return usage ("expected one PATH (a checkpoint file or folder)");
  if ((ids_text != NULL) + (ids_from != NULL) + (text != NULL) + (random_n != 0) != 1)
    return usage ("give the input with one of --ids, --ids-from, --text or --random N");
  if (wrap && text != NULL)
    return usage ("--wrap applies to --ids and --ids-from: --text already has the tokenizer’s special tokens");
  if (random_n < 0)
    return usage ("--random N needs N ≥ 1");
  if (seed < 0)
    return usage ("--seed must be ≥ 0");
  if (period < 0 || (period > 0 && random_n == 0))
    return usage ("--period P needs P ≥ 1 and --random N");
  if (out == NULL)
    return usage ("--out FILE.h5 is required");
  if (!g_str_has_suffix (out, ".h5") && !g_str_has_suffix (out, ".hdf5"))
    return usage ("--out must name an .h5 file (attentions are 4-D)");

  if (ids_text != NULL && !(ids = parse_ids (ids_text, &error)))
    return usage (error->message);
  if (ids != NULL && ids->len == 0)
    return usage ("--ids holds no token id");
  if (ids_from != NULL && !(ids = read_ids (ids_from, &error)))
    return pl_cli_fail (error);

  if (!(model = pl_cli_open_model (argv[1], NULL, &error)) ||
      !(transformer = pl_transformer_new (model, &error)))
    return pl_cli_fail (error);
  c = pl_transformer_get_config (transformer);

  if (text != NULL)
    {
      if (!(ids = pl_tokenizer_encode_for_model (argv[1], text, NULL, &error)))
        return pl_cli_fail (error);
      if (ids->len == 0 || ids->len > c->n_positions)
        {
          g_set_error (&error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                       "--text gives %u tokens; %s reads 1 to %u", ids->len, argv[1], c->n_positions);
          return pl_cli_fail (error);
        }
    }
  else if (random_n > 0)
    ids = pl_transformer_repeated_ids (transformer, random_n, period, seed);
  else if (wrap)
    {
      GArray *wrapped = pl_transformer_wrap_ids (transformer, (int *) ids->data, ids->len);
      g_array_unref (ids);
      ids = wrapped;
    }

  /* Beside the target, renamed into place once complete. */
  tmp = g_strdup_printf ("%s.part-%d", out, (int) getpid ());
  w.path = out;
  w.n_heads = c->n_heads;
  w.n_tokens = ids->len;
  w.hidden_size = c->hidden_size;

  pl_hdf5_lock ();
  w.file = H5Fcreate (tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (w.file < 0)
    pl_hdf5_set_error (&w.error, PL_ERROR_FAILED, out, "cannot create the file");
  else
    {
      hsize_t n = ids->len;
      hsize_t adims[4] = { c->n_layers, c->n_heads, n, n };
      hsize_t hdims[3] = { c->n_layers + 1, n, c->hidden_size };
      hid_t space = H5Screate_simple (1, &n, NULL);
      hid_t d = H5Dcreate2 (w.file, "/input_ids", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

      if (d < 0 || H5Dwrite (d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ids->data) < 0)
        pl_hdf5_set_error (&w.error, PL_ERROR_FAILED, out, "cannot write /input_ids");
      if (d >= 0)
        H5Dclose (d);
      H5Sclose (space);
      if (!no_attentions)
        w.attentions = create_dataset (&w, "/attentions", 4, adims);
      if (!no_hidden)
        w.hidden = create_dataset (&w, "/hidden_states", 3, hdims);
    }
  pl_hdf5_unlock ();

  ok = w.error == NULL &&
       pl_transformer_run (transformer, (int *) ids->data, ids->len, !no_attentions,
                           write_layer, &w, NULL, NULL, NULL, &error);
  if (ok && w.error != NULL)
    ok = FALSE;

  pl_hdf5_lock ();
  if (w.attentions >= 0)
    H5Dclose (w.attentions);
  if (w.hidden >= 0)
    H5Dclose (w.hidden);
  if (w.file >= 0 && H5Fclose (w.file) < 0 && w.error == NULL)
    pl_hdf5_set_error (&w.error, PL_ERROR_FAILED, out, "cannot finish writing");
  pl_hdf5_unlock ();

  if (ok && w.error == NULL && g_rename (tmp, out) != 0)
    g_set_error (&w.error, PL_ERROR, PL_ERROR_FAILED, "%s: cannot write: %s", out, g_strerror (errno));
  if (!ok || w.error != NULL)
    {
      g_unlink (tmp);
      if (w.error != NULL)
        {
          g_clear_error (&error);
          error = w.error;
        }
      return pl_cli_fail (error);
    }

  printf ("%s: %u tokens through %u layers of %u heads\n", out, ids->len, c->n_layers, c->n_heads);
  return PL_CLI_EXIT_OK;
}
