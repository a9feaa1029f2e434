/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "pl-blas-core.h"
#include "pl-cli.h"
#include "pl-error.h"
#include "pl-executor.h"
#include "pl-version.h"

typedef struct
{
  const char   *name;
  PlCliCommand  run;
  const char   *summary;
} Command;

static const Command commands[] = {
  { "info", pl_cli_info, N_("What a checkpoint holds: format, family, position table, sizes") },
  { "check", pl_cli_check, N_("Whether Poslens can open a checkpoint: exit 0, or 2 with the reason") },
  { "tokenize", pl_cli_tokenize, N_("Split text into the ids and tokens a model sees") },
  { "similarity", pl_cli_similarity, N_("Cosine, dot or Euclidean similarity between positions, to .h5/.csv/.npy") },
  { "pca", pl_cli_pca, N_("Principal components of the positions, to .h5/.csv/.npy") },
  { "patch-grid", pl_cli_patch_grid, N_("A vision transformer’s grid of grids: each patch’s similarity with every patch") },
  { "resize", pl_cli_resize, N_("A vision transformer’s position table at another grid, as Hugging Face resizes it") },
  { "probe", pl_cli_probe, N_("The paper's absolute-position and relative-order probes") },
  { "paper", pl_cli_paper, N_("Figure 1 and Table 1 of the paper for some models, as PDF and PNG") },
  { "forward", pl_cli_forward, N_("Run the model on one input: attentions and hidden states to .h5") },
  { "attention", pl_cli_attention, N_("Attention by relative position per layer and head, and the position-only term") },
  { "rope-profile", pl_cli_rope_profile, N_("Which rotary frequencies each head of a RoPE model uses") },
  { "position-bias", pl_cli_position_bias, N_("The bias a T5 or ALiBi model adds to attention scores, by offset and head") },
  { NULL, NULL, NULL }
};

static void
print_usage (FILE *out)
{
  fprintf (out, "%s\n\n", _("Usage: poslens-cli COMMAND [OPTIONS…]"));
  fprintf (out, "%s\n\n", _("What position embeddings learn, from the command line."));
  fprintf (out, "%s\n", _("Commands:"));
  for (const Command *c = commands; c->name != NULL; c++)
    fprintf (out, "  %-12s %s\n", c->name, _(c->summary));
  fprintf (out, "\n%s\n", _("Run “poslens-cli COMMAND --help” for a command’s options."));
}

/* What a command printed must have reached standard output (a full disk, a
 * closed pipe): otherwise its answer is cut, and the exit status says so. */
static int
finish (int status)
{
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      int saved = errno;

      fprintf (stderr, _("poslens-cli: cannot write to standard output: %s\n"), g_strerror (saved));
      return status == PL_CLI_EXIT_OK ? PL_CLI_EXIT_INPUT : status;
    }
  return status;
}

int
main (int   argc,
      char *argv[])
{
  pl_blas_core_choose (argv);
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    {
      print_usage (argc < 2 ? stderr : stdout);
      return argc < 2 ? PL_CLI_EXIT_USAGE : PL_CLI_EXIT_OK;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      g_autofree char *blas = pl_blas_core_describe ();

      printf ("poslens-cli %s\n%s\n", pl_version (), blas);
      return PL_CLI_EXIT_OK;
    }

  /* The threads the analyses split their work over, as in the window. */
  pl_executor_get_default ();
  for (const Command *c = commands; c->name != NULL; c++)
    if (strcmp (argv[1], c->name) == 0)
      return finish (c->run (argc - 1, argv + 1));

  {
    g_autofree char *name = pl_escape_text (argv[1], -1);

    fprintf (stderr, _("poslens-cli: unknown command “%s”\n"), name);
  }
  print_usage (stderr);
  return PL_CLI_EXIT_USAGE;
}
