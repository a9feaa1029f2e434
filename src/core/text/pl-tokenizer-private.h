/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "pl-tokenizer.h"

G_BEGIN_DECLS

/* A token split out of the text before anything else, as Hugging Face's
 * added tokens: matched exactly, LSTRIP / RSTRIP swallow the whitespace
 * before / after it. Special or not, it is never tokenised further. */
typedef struct
{
  char     *content;
  gsize     len;
  int       id;
  gboolean  lstrip;
  gboolean  rstrip;
  gboolean  single_word;  /* only where no word character (\w) touches it */
  gboolean  special;      /* left out by decoding with SKIP_SPECIAL */
} PlSpecialToken;

/* Added tokens matched in one pass: before normalising (Hugging Face's
 * normalized false) or in the normalised text (true, CONTENT normalised). */
typedef struct
{
  GArray  *tokens;                /* PlSpecialToken, longest first once sorted */
  guint8   first[256];            /* first bytes of their contents, to scan fast */
} PlAddedTokens;

typedef struct _PlBpeMerges PlBpeMerges;
typedef struct _PlUnigram PlUnigram;
typedef struct _PlPrecompiled PlPrecompiled;

/* The steps of Hugging Face's pipeline that BPE tokenizers use, in the
 * order tokenizer.json lists them (pl-tokenizer-pipeline.c runs them). */
typedef enum
{
  PL_NORMALIZE_NFC,
  PL_NORMALIZE_NFD,
  PL_NORMALIZE_NFKC,
  PL_NORMALIZE_NFKD,
  PL_NORMALIZE_PREPEND,         /* CONTENT before a non-empty text */
  PL_NORMALIZE_REPLACE,         /* every PATTERN (a string) by CONTENT */
  PL_NORMALIZE_REPLACE_SPACES,  /* every run of two or more spaces (Regex " {2,}") by CONTENT */
  PL_NORMALIZE_LOWERCASE,       /* Rust's char::to_lowercase */
  PL_NORMALIZE_STRIP_ACCENTS,   /* combining marks dropped */
  PL_NORMALIZE_STRIP,           /* white space at the start (LEFT) and end (RIGHT) dropped */
  PL_NORMALIZE_PRECOMPILED,     /* SentencePiece's charsmap (pl-tokenizer-precompiled.c) */
} PlNormalizeKind;

typedef struct
{
  PlNormalizeKind  kind;
  char            *pattern;
  char            *content;
  gboolean         left;
  gboolean         right;
  PlPrecompiled   *precompiled;
} PlNormalizeStep;

/* What a Split finds: a string, \p{N} characters (the Digits
 * pre-tokenizer), or one of the regular expressions of GPT-2, Llama 3
 * (tiktoken's, digits in threes) and Qwen2 (the same, digits one by one),
 * each scanned by hand in pl-tokenizer-pretokenize.c. */
typedef enum
{
  PL_PATTERN_STRING,
  PL_PATTERN_NUMERIC,
  PL_PATTERN_GPT2,
  PL_PATTERN_TIKTOKEN,
  PL_PATTERN_TIKTOKEN_DIGIT,
  PL_PATTERN_WHITE_SPACE,       /* each white-space character (WhitespaceSplit, removed) */
} PlPatternKind;

/* Hugging Face's SplitDelimiterBehavior: what becomes of a match. */
typedef enum
{
  PL_SPLIT_ISOLATED,
  PL_SPLIT_REMOVED,
  PL_SPLIT_MERGED_WITH_PREVIOUS,
  PL_SPLIT_MERGED_WITH_NEXT,
  PL_SPLIT_CONTIGUOUS,
} PlSplitBehavior;

typedef enum
{
  PL_PREPEND_ALWAYS,
  PL_PREPEND_FIRST,             /* only where the text starts */
  PL_PREPEND_NEVER,
} PlPrependScheme;

typedef enum
{
  PL_PRETOKENIZE_SPLIT,         /* Split, and Digits */
  PL_PRETOKENIZE_BYTE_LEVEL,    /* always the last step: the model maps bytes */
  PL_PRETOKENIZE_METASPACE,
} PlPretokenizeKind;

typedef struct
{
  PlPretokenizeKind  kind;
  /* Split */
  PlPatternKind      pattern;
  char              *string;
  PlSplitBehavior    behavior;
  gboolean           invert;
  /* ByteLevel */
  gboolean           add_prefix_space;
  gboolean           use_regex;
  /* Metaspace: REPLACEMENT is one character */
  char               replacement[8];
  PlPrependScheme    prepend_scheme;
  gboolean           split;
} PlPretokenizeStep;

typedef enum
{
  PL_DECODE_BYTE_LEVEL,
  PL_DECODE_METASPACE,
  PL_DECODE_REPLACE,
  PL_DECODE_BYTE_FALLBACK,
  PL_DECODE_FUSE,
  PL_DECODE_STRIP,
} PlDecodeKind;

typedef struct
{
  PlDecodeKind     kind;
  char            *pattern;         /* Replace */
  char            *content;         /* Replace; Strip: one character */
  guint            start;           /* Strip */
  guint            stop;
  char             replacement[8];  /* Metaspace */
  PlPrependScheme  prepend_scheme;
} PlDecodeStep;

struct _PlTokenizer
{
  GObject             parent_instance;

  PlTokenizerKind     kind;
  char               *source;
  GPtrArray          *vocab;          /* id → token string (owned), NULL for holes */
  guint               id_limit;       /* ids at or past it are refused */
  guint64             n_listed;       /* the tokens the file lists, 0 if unsaid */
  GHashTable         *ids;            /* token (borrowed from vocab) → GINT_TO_POINTER (id + 1) */
  PlAddedTokens       added;          /* matched in the text as typed */
  PlAddedTokens       added_normalized; /* matched in the normalised text */
  GHashTable         *added_contents; /* set of the contents of both (owned) */
  GHashTable         *added_only;     /* ids of added tokens the model's vocabulary lacks */
  GHashTable         *decoded_as;     /* id → normalised content of normalized added tokens */
  int                 added_sorted;   /* atomic: sorted since the last one was added */
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
  gboolean            byte_level;     /* the model sees bytes as characters */
  int                 ascii_ids[128]; /* otherwise: id of each ASCII character, or -1 */
  gboolean            ignore_merges;
  gboolean            byte_fallback;  /* unknown characters as <0xNN> tokens */
  int                 fallback_ids[256]; /* id of <0xNN>, or -1 */
  gboolean            fuse_unk;       /* one unk_id for a run of unknown characters */
  GArray             *normalizers;    /* PlNormalizeStep */
  GArray             *pretokenizers;  /* PlPretokenizeStep */
  GArray             *decoders;       /* PlDecodeStep; empty: join with spaces */
  GHashTable         *cache;          /* pre-token → int[] {n, ids…} */
  GMutex              cache_lock;

  /* Unigram (pl-tokenizer-unigram.c), behind the same pipeline */
  PlUnigram          *unigram;

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
/* An added token of tokenizer.json: NORMALIZED ones are matched in the
 * normalised text, by their normalised content. */
gboolean     pl_tokenizer_add_token        (PlTokenizer      *self,
                                            const char       *content,
                                            gint64            id,
                                            gboolean          lstrip,
                                            gboolean          rstrip,
                                            gboolean          single_word,
                                            gboolean          normalized,
                                            gboolean          special,
                                            GError          **error);
/* Cuts the added tokens of SET out of TEXT: their ids go to IDS, the text
 * between them to FUNC. AT_START: TEXT begins where the typed text does. */
typedef void (*PlSegmentFunc) (PlTokenizer *self,
                               const char  *text,
                               gsize        len,
                               gboolean     at_start,
                               GArray      *ids);
void         pl_tokenizer_split_added      (PlTokenizer      *self,
                                            const PlAddedTokens *set,
                                            const char       *text,
                                            gsize             len,
                                            gboolean          at_start,
                                            PlSegmentFunc     func,
                                            GArray           *ids);
/* The id of TOKEN in the model's own vocabulary (not an added token's), or
 * -1: what BPE's merging and ignore_merges look up, as in Hugging Face. */
int          pl_tokenizer_model_token_to_id (PlTokenizer     *self,
                                             const char      *token);
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

/* pl-tokenizer-gguf.c: the tokenizer in a GGUF file's metadata (HEADER,
 * read from PATH). */
typedef struct _PlGgufHeader PlGgufHeader;
PlTokenizer *pl_tokenizer_new_from_gguf_header (const PlGgufHeader *header,
                                                const char         *path,
                                                GError            **error);

/* pl-tokenizer-json.c: Hugging Face's tokenizer.json, with the helpers
 * its readers share */
gboolean     pl_tokenizer_load_hf_json     (PlTokenizer      *self,
                                            JsonObject       *root,
                                            const char       *path,
                                            GError          **error);
const char  *pl_hf_json_type               (JsonNode         *node);
gboolean     pl_hf_json_bool               (JsonObject       *object,
                                            const char       *member,
                                            gboolean          fallback);
const char  *pl_hf_json_string             (JsonObject       *object,
                                            const char       *member);
/* Both set ERROR (naming PATH) and return FALSE. */
gboolean     pl_hf_json_unsupported        (GError          **error,
                                            const char       *path,
                                            const char       *what,
                                            const char       *name);
gboolean     pl_hf_json_corrupt            (GError          **error,
                                            const char       *path,
                                            const char       *what);

/* pl-tokenizer-json-pipeline.c: the normalizer, pre-tokenizer and decoder
 * in front of and behind a BPE model */
gboolean     pl_tokenizer_read_bpe_pipeline (PlTokenizer     *self,
                                             JsonObject      *root,
                                             const char      *path,
                                             GError         **error);

/* pl-tokenizer-pipeline.c: running them */
void         pl_pipeline_init              (PlTokenizer      *self);
void         pl_pipeline_clear             (PlTokenizer      *self);
/* GPT-2's pipeline: one ByteLevel pre-tokenizer with its regex. */
void         pl_pipeline_use_byte_level    (PlTokenizer      *self,
                                            gboolean          add_prefix_space);
/* TEXT with every PATTERN (not empty), left to right, as CONTENT. */
char        *pl_string_replace_all         (const char       *text,
                                            gsize             len,
                                            const char       *pattern,
                                            const char       *content);
/* The normalizers on TEXT; NULL when there are none. */
char        *pl_pipeline_normalize         (PlTokenizer      *self,
                                            const char       *text,
                                            gsize             len,
                                            gsize            *out_len);
/* Normalizers, the added tokens matched after them, pre-tokenizers, model. */
void         pl_pipeline_encode            (PlTokenizer      *self,
                                            const char       *text,
                                            gsize             len,
                                            gboolean          at_start,
                                            GArray           *ids);

/* The pieces the normalizers and pre-tokenizers alone cut TEXT into (no
 * added tokens), byte-level ones spelt as the model sees them: for tests. */
GPtrArray   *pl_pipeline_pieces            (PlTokenizer      *self,
                                            const char       *text);

/* pl-tokenizer-decode.c: the decoders, and one token's label */
char        *pl_pipeline_decode            (PlTokenizer      *self,
                                            const int        *ids,
                                            gsize             n_ids,
                                            gboolean          skip_special);
char        *pl_pipeline_label             (PlTokenizer      *self,
                                            int               id);

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
/* The same for ids the caller found: LEFT and RIGHT merge into MERGED, ranked
 * after every merge added before. */
void         pl_bpe_add_merge_ids          (PlTokenizer      *self,
                                            int               left,
                                            int               right,
                                            int               merged);
gboolean     pl_bpe_prepare                (PlTokenizer      *self,
                                            const char       *unk_token,
                                            GError          **error);
/* The model on one pre-token: its bytes as characters (byte-level) or its
 * characters, falling back to <0xNN> tokens and the unknown token. */
void         pl_bpe_encode_piece           (PlTokenizer      *self,
                                            const char       *text,
                                            gsize             len,
                                            GString          *scratch,
                                            GArray           *ids);

/* The model on one pre-token: BPE's or Unigram's. */
void         pl_pipeline_encode_piece      (PlTokenizer      *self,
                                            const char       *text,
                                            gsize             len,
                                            GString          *scratch,
                                            GArray           *ids);

/* pl-tokenizer-unigram.c: PIECE with SCORE is id ID (ids below N_PIECES) */
PlUnigram   *pl_unigram_new                (guint             n_pieces);
void         pl_unigram_free               (PlUnigram        *self);
void         pl_unigram_add                (PlUnigram        *self,
                                            guint             id,
                                            const char       *piece,
                                            double            score);
void         pl_unigram_set_unk            (PlUnigram        *self,
                                            int               unk_id);
void         pl_unigram_encode_piece       (PlTokenizer      *self,
                                            const char       *text,
                                            gsize             len,
                                            GArray           *ids);
/* tokenizer.json's Unigram model, and the pipeline before it */
gboolean     pl_tokenizer_read_unigram     (PlTokenizer      *self,
                                            JsonObject       *root,
                                            JsonObject       *model,
                                            const char       *path,
                                            GError          **error);

/* pl-tokenizer-precompiled.c: DATA, the decoded precompiled_charsmap */
PlPrecompiled *pl_precompiled_new          (const guint8     *data,
                                            gsize             len,
                                            const char       *path,
                                            GError          **error);
void         pl_precompiled_free           (PlPrecompiled    *self);
void         pl_precompiled_normalize      (const PlPrecompiled *self,
                                            const char       *text,
                                            gsize             len,
                                            GString          *out);
/* pl-tokenizer-graphemes.c: the length of the extended grapheme cluster
 * TEXT starts with (UAX #29, as Rust's unicode-segmentation) */
gsize        pl_grapheme_end               (const char       *text,
                                            gsize             len);

/* pl-tokenizer-pretokenize.c */
typedef void (*PlSpanFunc) (const char *text, gsize len, gpointer user_data);
gboolean     pl_unichar_is_white_space     (gunichar          c);
/* \w of Rust's regex crate: Alphabetic, marks, Nd, Pc, Join_Control. */
gboolean     pl_unichar_is_word            (gunichar          c);
/* \p{N}: Unicode's Nd, Nl and No, as Rust's char::is_numeric. */
gboolean     pl_unichar_is_number          (gunichar          c);
/* GPT-2's pattern 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
void         pl_pretokenize_gpt2           (const char       *text,
                                            gsize             len,
                                            PlSpanFunc        func,
                                            gpointer          user_data);
/* Llama 3's (tiktoken's) pattern, MAX_DIGITS 3, and Qwen2's, MAX_DIGITS 1:
 * (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
 *  ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+ */
void         pl_pretokenize_tiktoken       (const char       *text,
                                            gsize             len,
                                            guint             max_digits,
                                            PlSpanFunc        func,
                                            gpointer          user_data);
/* BERT: split on whitespace, every punctuation character a word of its own */
void         pl_pretokenize_bert           (const char       *text,
                                            gsize             len,
                                            PlSpanFunc        func,
                                            gpointer          user_data);

G_END_DECLS
