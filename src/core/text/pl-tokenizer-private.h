/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "pl-tokenizer.h"

G_BEGIN_DECLS

/* A token split out of the text before anything else, as Hugging Face's
 * added tokens: matched exactly, LSTRIP / RSTRIP swallow the whitespace
 * before / after it. */
typedef struct
{
  char     *content;
  gsize     len;
  int       id;
  gboolean  lstrip;
  gboolean  rstrip;
} PlSpecialToken;

typedef struct _PlBpeMerges PlBpeMerges;

struct _PlTokenizer
{
  GObject             parent_instance;

  PlTokenizerKind     kind;
  char               *source;
  GPtrArray          *vocab;          /* id → token string (owned), NULL for holes */
  guint               id_limit;       /* ids at or past it are refused */
  guint64             n_listed;       /* the tokens the file lists, 0 if unsaid */
  GHashTable         *ids;            /* token (borrowed from vocab) → GINT_TO_POINTER (id + 1) */
  GArray             *specials;       /* PlSpecialToken, longest first once sorted */
  GHashTable         *special_contents; /* set of their contents (borrowed) */
  int                 specials_sorted; /* atomic: sorted since the last one was added */
  guint8              special_first[256]; /* first bytes of specials, to scan fast */
  GHashTable         *special_ids;    /* set of ids that are special */
  GArray             *prefix;         /* ids put before the text */
  GArray             *suffix;         /* ids put after it */

  /* WordPiece */
  PlWordPieceOptions  wp;
  int                 unk_id;
  char               *subword_prefix; /* "##" */
  gsize               max_token_bytes;

  /* Byte-level BPE, and the byte → character map the byte tokenizer shares */
  PlBpeMerges        *merges;
  int                 byte_ids[256];  /* id of each byte's character, or -1 */
  char                byte_chars[256][4];
  guint8              char_bytes[324]; /* inverse map: character (< 324) → byte */
  gboolean            add_prefix_space;
  gboolean            use_regex;
  gboolean            ignore_merges;
  GHashTable         *cache;          /* pre-token → int[] {n, ids…} */
  GMutex              cache_lock;

  /* Bytes */
  guint               byte_offset;
};

/* pl-tokenizer.c */
PlTokenizer *pl_tokenizer_alloc            (PlTokenizerKind   kind,
                                            const char       *source);
/* The ids a loader may give: fewer than N_LISTED, the tokens its file lists,
 * plus a little for gaps. Until a loader says, at most
 * PL_TOKENIZER_MAX_IDS. The array of tokens is as long as the largest id:
 * a few bytes naming id 1073741823 must not cost gigabytes. */
#define PL_TOKENIZER_MAX_IDS (1u << 20)
void         pl_tokenizer_set_id_limit     (PlTokenizer      *self,
                                            guint64           n_listed);
/* Names ID TOKEN; refuses (naming the tokenizer's file) an id outside the
 * limit. */
gboolean     pl_tokenizer_set_token        (PlTokenizer      *self,
                                            gint64            id,
                                            const char       *token,
                                            GError          **error);
gboolean     pl_tokenizer_add_special      (PlTokenizer      *self,
                                            const char       *content,
                                            gint64            id,
                                            gboolean          lstrip,
                                            gboolean          rstrip,
                                            GError          **error);
/* Adds every name of NAMES that the vocabulary holds as a special token. */
void         pl_tokenizer_add_specials_from_vocab (PlTokenizer *self,
                                                   const char * const *names);
gboolean     pl_tokenizer_add_affix        (PlTokenizer      *self,
                                            gboolean          prefix,
                                            const char       *token,
                                            GError          **error);
gboolean     pl_tokenizer_finish_wordpiece (PlTokenizer      *self,
                                            GError          **error);

/* pl-tokenizer-load.c: the files beside real checkpoints */
gboolean     pl_tokenizer_load_vocab_txt   (PlTokenizer      *self,
                                            const char       *path,
                                            GError          **error);
gboolean     pl_tokenizer_load_vocab_json  (PlTokenizer      *self,
                                            const char       *path,
                                            GError          **error);
gboolean     pl_tokenizer_load_merges_txt  (PlTokenizer      *self,
                                            const char       *path,
                                            GError          **error);
JsonNode    *pl_tokenizer_read_json        (const char       *path,
                                            GError          **error);

/* pl-tokenizer-json.c: Hugging Face's tokenizer.json */
gboolean     pl_tokenizer_load_hf_json     (PlTokenizer      *self,
                                            JsonObject       *root,
                                            const char       *path,
                                            GError          **error);

/* pl-tokenizer-wordpiece.c */
void         pl_wordpiece_default_options  (PlTokenizer      *self,
                                            PlWordPieceOptions *options);
gboolean     pl_wordpiece_prepare          (PlTokenizer      *self,
                                            GError          **error);
void         pl_wordpiece_encode           (PlTokenizer      *self,
                                            const char       *text,
                                            gsize             len,
                                            GArray           *ids);

/* pl-tokenizer-bpe.c */
void         pl_bpe_init_byte_map          (PlTokenizer      *self);
PlBpeMerges *pl_bpe_merges_new             (guint             n_hint);
void         pl_bpe_merges_free            (PlBpeMerges      *merges);
gboolean     pl_bpe_add_merge              (PlTokenizer      *self,
                                            const char       *left,
                                            const char       *right,
                                            GError          **error);
void         pl_bpe_prepare                (PlTokenizer      *self);
void         pl_bpe_encode                 (PlTokenizer      *self,
                                            const char       *text,
                                            gsize             len,
                                            GArray           *ids);

/* pl-tokenizer-pretokenize.c */
typedef void (*PlSpanFunc) (const char *text, gsize len, gpointer user_data);
gboolean     pl_unichar_is_white_space     (gunichar          c);
/* GPT-2's pattern 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
void         pl_pretokenize_gpt2           (const char       *text,
                                            gsize             len,
                                            PlSpanFunc        func,
                                            gpointer          user_data);
/* BERT: split on whitespace, every punctuation character a word of its own */
void         pl_pretokenize_bert           (const char       *text,
                                            gsize             len,
                                            PlSpanFunc        func,
                                            gpointer          user_data);

G_END_DECLS
