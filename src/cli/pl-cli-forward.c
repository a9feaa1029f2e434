/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

#include "pl-activations-writer.h"
#include "pl-cli.h"
#include "pl-error.h"
#include "pl-h5-writer.h"
#include "pl-matrix-io.h"
#include "pl-model.h"
#include "pl-tokenizer.h"
#include "pl-transformer.h"

/* poslens-cli forward: attentions and hidden states of one input, written
 * layer by layer into HDF5 as Hugging Face's output_attentions and
 * output_hidden_states lay them out, so memory stays at one layer; or, with
 * --stats-out, the activations file of several inputs (what the views need
 * of a forward pass), in the layout poslens-export writes. */

/* Random inputs the statistics average over, as the views' */
#define STATS_SEQUENCES 8

static int
usage (const char *message)
{
  return pl_cli_usage ("forward", message);
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

typedef struct
{
  PlH5Writer *writer;
  gboolean    attentions;
  gboolean    hidden;
  GError     *error;
} LayerWriter;

/* hidden_states[k] and, after the embeddings, attentions[k − 1]. */
static gboolean
write_layer (guint     k,
             PlMatrix *attention,
             PlMatrix *hidden,
             gpointer  user_data)
{
  LayerWriter *w = user_data;

  if (w->hidden && !pl_h5_writer_put (w->writer, "/hidden_states", k, hidden->data, &w->error))
    return FALSE;
  if (w->attentions && attention != NULL &&
      !pl_h5_writer_put (w->writer, "/attentions", k - 1, attention->data, &w->error))
    return FALSE;
  return TRUE;
}

static char *
config_text (PlModel *model)
{
  JsonObject *config = pl_checkpoint_get_config (pl_model_get_checkpoint (model));
  g_autoptr(JsonNode) node = NULL;

  if (config == NULL)
    return NULL;
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, config);
  return json_to_string (node, FALSE);
}

static int
write_stats (const char     *path,
             PlModel        *model,
             PlTransformer  *transformer,
             GPtrArray      *sequences,
             char          **map_texts,
             const char     *out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PlTokenizer) tokenizer = pl_tokenizer_new_for_model_dir (path, NULL);
  g_autoptr(GPtrArray) maps = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autofree char *config = config_text (model);
  g_autofree char *shown = pl_escape_text (out, -1);
  const PlTransformerConfig *c = pl_transformer_get_config (transformer);
  PlActivationsInputs inputs = { 0, };

  for (guint m = 0; map_texts != NULL && map_texts[m] != NULL; m++)
    {
      GArray *ids = pl_tokenizer_encode_for_model (path, map_texts[m], NULL, &error);

      if (ids == NULL)
        return pl_cli_fail (error);
      g_ptr_array_add (maps, ids);
      if (ids->len == 0 || ids->len > pl_transformer_get_max_tokens (transformer))
        {
          g_set_error (&error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                       "--map-text %u gives %u tokens; %s reads 1 to %u", m + 1, ids->len, path,
                       pl_transformer_get_max_tokens (transformer));
          return pl_cli_fail (error);
        }
    }

  inputs.model_name = pl_model_get_name (model);
  inputs.config_json = config;
  inputs.writer = "poslens-cli " PACKAGE_VERSION;
  inputs.sequences = sequences;
  inputs.map_sequences = maps;
  inputs.tokenizer = tokenizer;
  if (!pl_activations_write (transformer, &inputs, out, NULL, &error))
    return pl_cli_fail (error);
  printf ("%s: statistics of %u inputs of %u tokens through %u layers of %u heads, %u attention maps\n",
          shown, sequences->len, ((GArray *) sequences->pdata[0])->len, c->n_layers, c->n_heads, maps->len);
  return PL_CLI_EXIT_OK;
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
  g_autofree char *stats_out = NULL;
  g_auto(GStrv) map_texts = NULL;
  g_autoptr(GPtrArray) sequences = NULL;
  const PlTransformerConfig *c;
  int random_n = 0, period = 0, n_sequences = 0;
  gint64 seed = 0;
  gboolean wrap = FALSE, no_attentions = FALSE, no_hidden = FALSE;
  g_autoptr(PlH5Writer) writer = NULL;
  LayerWriter w = { NULL, FALSE, FALSE, NULL };
  gboolean ran;
  g_autofree char *table_name = NULL;
  const GOptionEntry entries[] = {
    PL_CLI_TABLE_OPTION (table_name),
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
    { "stats-out", 0, 0, G_OPTION_ARG_FILENAME, &stats_out, N_("Write the activations file: the statistics the views need, over the inputs"), N_("FILE.h5") },
    { "sequences", 0, 0, G_OPTION_ARG_INT, &n_sequences, N_("With --stats-out and --random: N random inputs, seeds S to S + N − 1 (default 8)"), N_("N") },
    { "map-text", 0, 0, G_OPTION_ARG_STRING_ARRAY, &map_texts, N_("With --stats-out: keep the full attention maps of this sentence (repeatable)"), N_("TEXT") },
    { NULL }
  };

  context = g_option_context_new (_("PATH — run the model on one input, write its attentions and hidden states"));
  g_option_context_set_description (context,
    _("Writes /input_ids [T], /attentions [layers, heads, T, T] and /hidden_states [layers + 1, T, hidden]\n"
      "(hidden_states[0] is the embedding output; GPT-2's last is after ln_f), float32, as Hugging Face's\n"
      "output_attentions and output_hidden_states.\n"
      "--text needs the model’s tokenizer files beside it (tokenizer.json, vocab.txt, vocab.json + merges.txt,\n"
      "or Poslens’ byte tokenizer in tokenizer_config.json); its ids already hold [CLS]/[SEP] or <s>/</s>.\n"
      "\n"
      "--stats-out writes the activations file (its layout is in Poslens’ README) over the inputs: --random N\n"
      "with --sequences inputs, the rows of a 2-D --ids-from dataset, or --ids or --text alone. Poslens opens\n"
      "it like a model; poslens-export writes the same file from a Hugging Face run."));
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
  if (out == NULL && stats_out == NULL)
    return usage ("--out FILE.h5 or --stats-out FILE.h5 is required");
  if (out != NULL && !g_str_has_suffix (out, ".h5") && !g_str_has_suffix (out, ".hdf5"))
    return usage ("--out must name an .h5 file (attentions are 4-D)");
  if (stats_out != NULL && !g_str_has_suffix (stats_out, ".h5") && !g_str_has_suffix (stats_out, ".hdf5"))
    return usage ("--stats-out must name an .h5 file");
  if (stats_out == NULL && (n_sequences != 0 || map_texts != NULL))
    return usage ("--sequences and --map-text go with --stats-out");
  if (n_sequences < 0 || (n_sequences > 0 && random_n == 0))
    return usage ("--sequences N needs N ≥ 1 and --random");
  if (n_sequences > 1 && out != NULL)
    return usage ("--out writes one input: give --sequences with --stats-out alone");

  if (ids_text != NULL && !(ids = parse_ids (ids_text, &error)))
    return usage (error->message);
  if (ids != NULL && ids->len == 0)
    return usage ("--ids holds no token id");
  if (ids_from != NULL)
    {
      if (!(sequences = pl_matrix_io_read_id_rows (ids_from, &error)))
        return pl_cli_fail (error);
      if (sequences->len > 1 && out != NULL)
        return usage ("--out writes one input: a 2-D --ids-from goes with --stats-out alone");
      ids = g_array_ref (sequences->pdata[0]);
    }

  if (!(model = pl_cli_open_model (argv[1], NULL, table_name, &error)) ||
      !(transformer = pl_transformer_new (model, NULL, &error)))
    return pl_cli_fail (error);
  c = pl_transformer_get_config (transformer);

  if (text != NULL)
    {
      if (!(ids = pl_tokenizer_encode_for_model (argv[1], text, NULL, &error)))
        return pl_cli_fail (error);
      if (ids->len == 0 || ids->len > pl_transformer_get_max_tokens (transformer))
        {
          g_set_error (&error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                       "--text gives %u tokens; %s reads 1 to %u", ids->len, argv[1],
                       pl_transformer_get_max_tokens (transformer));
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
      if (sequences != NULL)
        for (guint r = 0; r < sequences->len; r++)
          {
            GArray *row = sequences->pdata[r];

            sequences->pdata[r] = pl_transformer_wrap_ids (transformer, (int *) row->data, row->len);
            g_array_unref (row);
          }
    }

  if (stats_out != NULL)
    {
      int status;

      if (sequences == NULL)
        {
          sequences = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
          g_ptr_array_add (sequences, g_array_ref (ids));
          /* the views' random inputs: seeds S, S + 1, … */
          for (int s = 1; random_n > 0 && s < (n_sequences > 0 ? n_sequences : STATS_SEQUENCES); s++)
            g_ptr_array_add (sequences, pl_transformer_repeated_ids (transformer, random_n, period, seed + s));
        }
      status = write_stats (argv[1], model, transformer, sequences, map_texts, stats_out);
      if (status != PL_CLI_EXIT_OK || out == NULL)
        return status;
    }

  {
    guint64 n = ids->len;
    guint64 attention_dims[4] = { c->n_layers, c->n_heads, n, n };
    guint64 hidden_dims[3] = { c->n_layers + 1, n, c->hidden_size };

    if (!(writer = pl_h5_writer_new (out, &error)) ||
        !pl_h5_writer_write_ints (writer, "/input_ids", (int *) ids->data, n, &error) ||
        (!no_attentions && !pl_h5_writer_add (writer, "/attentions", 4, attention_dims, &error)) ||
        (!no_hidden && !pl_h5_writer_add (writer, "/hidden_states", 3, hidden_dims, &error)))
      return pl_cli_fail (error);
  }
  w.writer = writer;
  w.attentions = !no_attentions;
  w.hidden = !no_hidden;
  ran = pl_transformer_run (transformer, (int *) ids->data, ids->len, !no_attentions,
                            write_layer, &w, NULL, NULL, NULL, &error);
  {
    /* A failed write stops the pass early; its error says why. */
    g_autoptr(GError) write_error = w.error;

    if (write_error != NULL)
      return pl_cli_fail (write_error);
  }
  if (!ran || !pl_h5_writer_finish (writer, &error))
    return pl_cli_fail (error);

  {
    g_autofree char *shown = pl_escape_text (out, -1);

    printf ("%s: %u tokens through %u layers of %u heads\n", shown, ids->len, c->n_layers, c->n_heads);
  }
  return PL_CLI_EXIT_OK;
}
