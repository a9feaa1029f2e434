/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "pl-encodings.h"
#include "pl-error.h"
#include "pl-model.h"
#include "pl-model-relpos.h"

G_BEGIN_DECLS

#define PL_N_WEIGHTS (PL_WEIGHT_EXPERT_DOWN_WEIGHT + 1)

/* How one architecture names its tensors, after pl_model_normalize_name:
 * a dotted PyTorch-style name whatever the file format. Global roles are
 * relative to the model's prefix, per-layer roles to the layer's. */
typedef struct
{
  PlFamily     family;
  const char  *name;              /* "gpt2", as in config.json's model_type */
  const char  *display_name;      /* "GPT-2" */
  const char  *position_suffix;   /* what identifies the position table */
  const char  *layer_list;        /* relative to the prefix; the layer number and a dot follow
                                   * (not for shared layers, whose one set is at this path) */
  const char  *roles[PL_N_WEIGHTS];
  gboolean     conv1d;            /* linear weights stored [in, out] even as "weight" */
  gboolean     fused_qkv;         /* Q, K, V are thirds of one [hidden, 3 hidden] */
  gboolean     shared_layers;     /* ALBERT: every layer uses layer 0's weights */
  gboolean     causal;
  gboolean     pre_ln;
  gboolean     has_forward;       /* Poslens's forward pass runs this architecture */
  guint        first_position;    /* rows before the first real position */
  double       fixed_eps;         /* set by the architecture's code, not its config; 0 if configured */
  /* Rotary-position decoders: no position table, RoPE in attention,
   * PlRotaryDecoderSpec read from config.json (pl-model-decoder.c). */
  gboolean     rotary;
  PlNormKind   norm;
  gboolean     gated_mlp;
  gboolean     fused_qkv_rows;    /* Phi-3's qkv_proj: the rows of Q, then K, then V */
  gboolean     fused_qkv_heads;   /* GPT-NeoX's query_key_value: per head, its Q, K, V rows */
  gboolean     fused_gate_up;     /* Phi-3's gate_up_proj: the gate's rows, then up's */
  gboolean     scale_embeddings;  /* Gemma */
  gboolean     qk_norm;           /* Qwen 3: RMSNorm of each query and key head before the rotation */
  gboolean     post_norms;        /* Gemma 2: norms of the attention's and feed-forward's outputs */
  gboolean     ggml_rope_rows;    /* GGUF Llama: attn_q's and attn_k's rows permuted for ggml's rotary pairs */
  const char  *expert_list;       /* under a layer, before each expert's number: its EXPERT_* roles */
  /* Vision transformers (pl-model-vision.c): the table's rows after the
   * first_position special tokens' are patches in a grid, which config.json's
   * image_size / patch_size give. */
  gboolean     patch_grid;
  const char  *special_names[2];  /* the special rows, in order */
  const char  *config_section;    /* where a joint model's config.json keeps this tower's keys */
  const char  *alias;             /* model_type of the tower saved alone ("clip_vision_model") */
  const char  *marker;            /* a tensor, after the prefix, that tells this family from the ones
                                   * sharing its table's name; NULL: the last resort among them */
} PlFamilyDesc;

typedef struct
{
  char     *stored;     /* the name in the file */
  gboolean  kernel;     /* a Keras kernel: [in, out] */
} PlNormalizedName;

const PlFamilyDesc *pl_family_desc            (PlFamily            family);
const char         *pl_family_get_name        (PlFamily            family);
/* "bert/tf_bert_for_masked_lm/bert/encoder/layer_._0/attention/self/query/kernel:0"
 * -> "bert.tf_bert_for_masked_lm.bert.encoder.layer.0.attention.self.query.weight" */
char               *pl_model_normalize_name   (const char         *name,
                                               gboolean           *kernel);
/* Finds the family whose position table is in CHECKPOINT, with the prefix of
 * its names; FALSE when no known architecture matches. */
gboolean            pl_family_recognise       (PlCheckpoint       *checkpoint,
                                               GHashTable         *normalized,
                                               const PlFamilyDesc **desc,
                                               char              **prefix,
                                               const PlTensorInfo **table);
PlActivation        pl_activation_from_name   (const char         *name);
/* A vision transformer whose table is in CHECKPOINT (pl-model-vision.c):
 * config.json's model_type names it, or its table's name and marker tensor
 * tell it; FALSE otherwise. */
gboolean            pl_family_recognise_vision (PlCheckpoint      *checkpoint,
                                               GHashTable         *normalized,
                                               const PlFamilyDesc **desc,
                                               char              **prefix,
                                               const PlTensorInfo **table);
/* The shortest name ending in ".SUFFIX" (or SUFFIX itself), with what
 * comes before it in *PREFIX; FALSE when none does. */
gboolean            pl_family_find_suffix     (GHashTable         *normalized,
                                               const char         *suffix,
                                               char              **prefix);
/* config.json's model_type, or NULL. */
const char         *pl_family_config_model_type (PlCheckpoint     *checkpoint);
/* Whether MODEL_TYPE (config.json's) names a family Poslens recognises;
 * the model_type of each, comma-separated, for messages. */
gboolean            pl_family_knows_model_type (const char        *model_type);
char               *pl_family_list_model_types (void);
/* The families with a patch grid, for pl_family_recognise_vision. */
const PlFamilyDesc *pl_family_vision_descs    (guint              *n);
/* The rotary-position decoder whose layout CHECKPOINT's tensors have, with
 * the prefix of its names, when config.json's model_type names one (or says
 * nothing); FALSE otherwise. */
gboolean            pl_family_recognise_rotary (PlCheckpoint      *checkpoint,
                                               GHashTable         *normalized,
                                               const PlFamilyDesc **desc,
                                               char              **prefix);

/* pl-model-gguf.c: a GGUF file's architecture from its metadata: the
 * family as ggml names its tensors, GPT-2's position table, and the
 * configuration as config.json would say it (SELF->own_config); FALSE with
 * ERROR for an architecture Poslens does not run or a model split in parts. */
gboolean            pl_model_gguf_recognise   (PlModel            *self,
                                               const PlFamilyDesc **desc,
                                               const PlTensorInfo **table,
                                               GError            **error);
/* Llama 3's rope_freqs.weight, when the file has it, as the decoder's
 * frequency factors (a problem with it into config_problem). */
void                pl_model_gguf_read_rope_factors (PlModel      *self);
/* A query or key weight (or bias) of a GGUF Llama with the conversion's
 * permutation of each head's rows undone: Hugging Face's rotate-half order. */
PlStoredMatrix     *pl_model_gguf_unpermute   (PlModel            *self,
                                               PlStoredMatrix     *m,
                                               GError            **error);

/* pl-model-activations.c: SELF (taken over), whose checkpoint is an
 * activations file, as a model without weights. */
PlModel            *pl_model_open_activations (PlModel            *self,
                                               GError            **error);

/* pl_model_open's recognition on an opened CHECKPOINT (taken over), named
 * after PATH: the entry point of the model recogniser's fuzz target. */
PlModel            *pl_model_open_checkpoint  (PlCheckpoint       *checkpoint,
                                               const char         *path,
                                               const char         *dataset,
                                               GError            **error);

/* Shared by pl-model.c (opening, getters) and pl-model-weights.c (config,
 * weights by role). */
struct _PlModel
{
  GObject              parent_instance;

  char                *name;
  char                *path;
  PlCheckpoint        *checkpoint;
  PlMatrix            *table;          /* in-memory tables (analytic, new_for_table) */
  gboolean             has_encoding;
  PlEncodingSpec       encoding;
  const PlFamilyDesc  *desc;
  char                *prefix;         /* normalised prefix of the family's names */
  GHashTable          *normalized;     /* normalised name -> PlNormalizedName */

  char                *position_table;
  guint                table_rows;
  guint                table_cols;
  guint                first_position;

  guint                hidden;
  guint                embedding;      /* token embedding width (config.json's embedding_size) */
  guint                n_layers;
  guint                n_heads;
  guint                ffn;
  guint                vocab;
  double               eps;
  PlActivation         activation;
  char                *activation_name;
  gboolean             pre_ln;
  gboolean             causal;
  int                  bos_id;
  int                  eos_id;
  int                  pad_id;

  char                *config_problem; /* why heads/eps/activation are unknown */
  PlError              config_problem_code;

  /* vision transformers and 2-D encodings */
  guint                grid_rows;      /* 0: no grid */
  guint                grid_cols;
  char                *grid_problem;   /* why a vision table has no grid */

  /* an activations file: statistics, no weights */
  PlActivationsFile   *activations;

  /* rotary-position decoders */
  guint                max_positions;  /* max_position_embeddings */
  PlRotaryDecoderSpec        decoder;
  guint               *layer_windows;  /* decoder.layer_windows' storage */
  float               *rope_factors;   /* decoder.rope.freq_factors' storage */

  /* a configuration the file carries (GGUF metadata), as config.json would
   * say it; NULL: the checkpoint's config.json */
  JsonObject          *own_config;
  gboolean            *layer_experts;  /* decoder.layer_experts' storage */

  /* the position tables and the chosen one (pl-model-tables.c) */
  GArray              *tables;         /* PlModelTable */
  guint                chosen_table;
  const char          *stack;          /* static: "encoder", "decoder", "text", "vision" or NULL */
  PlTableKind          table_kind;
  /* T5, UMT5, BLOOM, MPT, DeBERTa-v2, BART, mBART, Whisper, CLIP's text
   * tower (pl-model-relpos.c) */
  gboolean             has_relpos;
  PlRelposSpec         relpos;
  char                *base_prefix;    /* before a stack's own ("model." for BART) */
  gboolean             has_bias;       /* T5, UMT5, BLOOM, MPT */
};

/* pl-model-tables.c: one of the model's position tables and where its
 * family's names start. */
typedef struct
{
  PlPositionTableInfo  info;           /* tensor points at the string below */
  char                *tensor;
  const PlFamilyDesc  *desc;
  char                *prefix;
} PlModelTable;

void                pl_model_add_table        (PlModel            *self,
                                               const char         *stack,
                                               const char         *tensor,
                                               guint64             rows,
                                               guint64             cols,
                                               guint               first_position,
                                               PlTableKind         kind,
                                               guint               layer,
                                               const PlFamilyDesc *desc,
                                               const char         *prefix);
/* After opening: a model with one table (or none) lists it, and the
 * chosen one is the one whose name position_table holds. */
void                pl_model_finish_tables    (PlModel            *self);
/* Back to no family, no table, no sizes: before a table of another stack or
 * tower is set up. */
void                pl_model_clear_setup      (PlModel            *self);

/* pl-model-relpos.c */
const PlFamilyDesc *pl_family_relpos_desc     (PlFamily            family);
/* The model_types of these families (t5, mt5, umt5, bloom, mpt, deberta-v2,
 * bart, mbart, whisper, clip_text_model), for pl_family_knows_model_type;
 * appended to NAMES, each after ", ". */
gboolean            pl_family_relpos_knows_model_type (const char *model_type);
void                pl_family_relpos_list_model_types (GString    *names);
/* The display names of those whose forward pass runs, each after ", ". */
void                pl_family_relpos_list_forward     (GString    *names);
gboolean            pl_family_recognise_relpos (PlCheckpoint      *checkpoint,
                                               GHashTable         *normalized,
                                               const PlFamilyDesc **desc,
                                               char              **prefix);
/* SELF (taken over) as a model of DESC whose names start at PREFIX, its
 * tables listed and the default one chosen (or DATASET's, when that names
 * one of them; another dataset opens as a plain table). */
PlModel            *pl_model_open_relpos      (PlModel            *self,
                                               const PlFamilyDesc *desc,
                                               const char         *prefix,
                                               const char         *dataset,
                                               GError            **error);
/* SELF set up for STACK of a family of pl-model-relpos.c (DESC, with the
 * model's prefix BASE): sizes, configuration, checks; FALSE and an error
 * naming the file and field when its config.json cannot be used. */
gboolean            pl_model_setup_relpos     (PlModel            *self,
                                               const PlFamilyDesc *desc,
                                               const char         *base,
                                               const char         *stack,
                                               GError            **error);
/* pl-model-relpos-config.c: the sizes, buckets and slopes of DESC's family
 * from CONFIG (config.json in DIR, or NULL), each checked before use; FALSE
 * and an error naming the file and the field when one cannot be used. */
gboolean            pl_model_read_relpos_config (PlModel            *self,
                                                 const PlFamilyDesc *desc,
                                                 JsonObject         *config,
                                                 const char         *dir,
                                                 GError            **error);
/* A CLIP model whose vision tower was recognised: its text tower's table
 * listed beside. */
void                pl_model_add_text_tower   (PlModel            *self);

/* pl-model.c */
PlModel            *pl_model_open_plain_table (PlModel            *self,
                                               const PlTensorInfo *info,
                                               GError            **error);
/* SELF set up as DESC, a family of pl-model-families.c or a vision tower,
 * with TABLE its position table. */
gboolean            pl_model_setup_recognised (PlModel            *self,
                                               const PlFamilyDesc *desc,
                                               const char         *prefix,
                                               const PlTensorInfo *table,
                                               GError            **error);

const PlTensorInfo *pl_model_find_role        (PlModel            *self,
                                               PlWeight            weight,
                                               int                 layer,
                                               gboolean           *kernel);
/* An EXPERT_* weight of one expert of LAYER; pl_model_find_role finds
 * expert 0's. */
const PlTensorInfo *pl_model_find_expert      (PlModel            *self,
                                               PlWeight            weight,
                                               int                 layer,
                                               guint               expert,
                                               gboolean           *kernel);
guint               pl_model_count_layers     (PlModel            *self);
/* Heads, epsilon, activation, special ids from config.json, and what is
 * missing for running the model. */
void                pl_model_read_config      (PlModel            *self);
/* config.json, or its section for this family's tower (CLIP's
 * vision_config) when it has one; NULL without a config.json. */
JsonObject         *pl_model_get_family_config (PlModel          *self);
/* pl-model-vision.c: the grid from config.json's image_size and patch_size,
 * or the square root of a square patch count; grid_problem otherwise. */
void                pl_model_read_grid        (PlModel            *self);
/* config.json's values: the first of KEYS that holds an integer (−1 when
 * none), a number (0 when none), a string (NULL); whether KEY is true. */
gint64              pl_config_int             (JsonObject         *config,
                                               const char * const *keys);
double              pl_config_double          (JsonObject         *config,
                                               const char * const *keys);
const char         *pl_config_string          (JsonObject         *config,
                                               const char * const *keys);
gboolean            pl_config_true            (JsonObject         *config,
                                               const char         *key);
/* pl-model-decoder.c: a rotary decoder's config.json into self->decoder and
 * the common fields; refusals (a rope_scaling kind or option Poslens does
 * not implement, named) into config_problem. */
void                pl_model_read_decoder_config (PlModel          *self);
/* pl-model-experts.c: an EXPERT_* weight of every expert of LAYER, their
 * rows one expert after the other, as stored. */
PlStoredMatrix     *pl_model_read_experts_weight (PlModel          *self,
                                                 PlWeight          weight,
                                                 int               layer,
                                                 GError          **error);
/* A decoder weight by role, in its stored precision (see
 * pl_model_read_stored_weight). */
PlStoredMatrix     *pl_model_read_decoder_weight (PlModel          *self,
                                                 PlWeight          weight,
                                                 int               layer,
                                                 GError          **error);

G_END_DECLS
