/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef enum
{
  PL_TOKENIZER_WORDPIECE,   /* vocab.txt: BERT, DistilBERT, ELECTRA */
  PL_TOKENIZER_BPE,         /* byte-level BPE, vocab.json + merges.txt: GPT-2, RoBERTa */
  PL_TOKENIZER_BYTES,       /* Poslens' demo models: id = byte + offset */
  PL_TOKENIZER_SENTENCEPIECE_BPE, /* BPE on characters, spaces as ▁, unknown bytes as <0xNN>:
                                   * Llama 2, Mistral, Gemma */
  PL_TOKENIZER_UNIGRAM,     /* SentencePiece's Unigram: T5, mT5, XLM-RoBERTa, ALBERT, DeBERTa-v3 */
} PlTokenizerKind;

/* How a WordPiece tokenizer normalises text before splitting it, as Hugging
 * Face's BertNormalizer and BertPreTokenizer do. */
typedef struct
{
  gboolean lowercase;
  gboolean strip_accents;     /* NFD, then drop non-spacing marks */
  gboolean clean_text;        /* drop control characters, map whitespace to spaces */
  gboolean chinese_chars;     /* every CJK ideograph is a word of its own */
  gboolean add_special;       /* [CLS] first, [SEP] last */
  guint    max_chars_per_word; /* longer words become [UNK]; 0 means 100 */
} PlWordPieceOptions;

#define PL_TYPE_TOKENIZER (pl_tokenizer_get_type ())

G_DECLARE_FINAL_TYPE (PlTokenizer, pl_tokenizer, PL, TOKENIZER, GObject)

/* Finds the tokenizer of a checkpoint. PATH is a checkpoint folder, a
 * checkpoint file (the tokenizer files sit beside it) or a tokenizer file
 * itself (tokenizer.json, vocab.txt, vocab.json, tokenizer_config.json).
 * Looks, in order, for tokenizer.json, a Poslens byte tokenizer in
 * tokenizer_config.json, vocab.txt, vocab.json + merges.txt; reads
 * tokenizer_config.json and config.json for lower-casing and special tokens.
 * Fails with PL_ERROR_NOT_FOUND and a message saying what was looked for
 * when there is no tokenizer beside the model. */
PlTokenizer     *pl_tokenizer_new_for_model_dir (const char                *path,
                                                 GError                   **error);
/* OPTIONS may be NULL: lower-case and strip accents when the vocabulary has
 * no upper-case words, clean text, split CJK, add [CLS]/[SEP]. */
PlTokenizer     *pl_tokenizer_new_wordpiece     (const char                *vocab_txt,
                                                 const PlWordPieceOptions  *options,
                                                 GError                   **error);
/* ADD_BOS_EOS puts <s> first and </s> last (RoBERTa); GPT-2 adds nothing. */
PlTokenizer     *pl_tokenizer_new_bpe           (const char                *vocab_json,
                                                 const char                *merges_txt,
                                                 gboolean                   add_bos_eos,
                                                 GError                   **error);
/* Byte b is id b + OFFSET; ids below OFFSET are SPECIALS (NULL-terminated,
 * index = id). PREFIX_ID / SUFFIX_ID (or -1) are added around the text. */
PlTokenizer     *pl_tokenizer_new_bytes         (guint                      offset,
                                                 const char * const        *specials,
                                                 int                        prefix_id,
                                                 int                        suffix_id);
/* Hugging Face's tokenizer.json holding a WordPiece model, a BPE model:
 * byte-level (GPT-2, Llama 3, Qwen2, GPT-NeoX: the ByteLevel pre-tokenizer,
 * after a Split on GPT-2's, Llama 3's or Qwen2's pattern or Digits) or
 * SentencePiece-style (Llama 2, Mistral, Gemma: ▁ for spaces by the
 * Prepend / Replace normalizers or the Metaspace pre-tokenizer, byte
 * fallback), or a Unigram model (T5, mT5, XLM-RoBERTa, ALBERT, DeBERTa-v3:
 * the Precompiled, Strip, Lowercase, StripAccents and Replace " {2,}"
 * normalizers, WhitespaceSplit and Metaspace). NFC/NFD/NFKC/NFKD
 * normalizers, added tokens and TemplateProcessing are read. Other models
 * (WordLevel), normalizers, pre-tokenizers, patterns and decoders are
 * refused with PL_ERROR_UNSUPPORTED naming them and the file. */
PlTokenizer     *pl_tokenizer_new_from_json     (const char                *tokenizer_json,
                                                 GError                   **error);
/* The tokenizer a GGUF file carries (pl-tokenizer-gguf.c): tokenizer.ggml.model
 * "llama" (SentencePiece-style BPE from the tokens' scores, byte tokens,
 * "▁" for spaces) or "gpt2" (byte-level BPE with the merges and the
 * pre-tokenizer tokenizer.ggml.pre names), its control and user-defined
 * tokens matched whole, BOS and EOS added as the file says. Other models and
 * pre-tokenizers are refused with PL_ERROR_UNSUPPORTED naming them. */
PlTokenizer     *pl_tokenizer_new_from_gguf     (const char                *path,
                                                 GError                   **error);

/* Tokenises TEXT (UTF-8, NUL-terminated) into exactly the ids the model sees,
 * special tokens included (do not wrap them again with
 * pl_transformer_wrap_ids). IDS: GArray of int; TOKENS: the token strings
 * (owned by the array); either may be NULL. Special tokens written in the
 * text ("[MASK]", "<mask>") become their ids. Nothing is truncated: compare
 * the length with the model's positions. Fails with
 * PL_ERROR_INVALID_ARGUMENT when TEXT is not valid UTF-8. Thread-safe: one
 * tokenizer may serve several threads. */
gboolean         pl_tokenizer_encode            (PlTokenizer               *self,
                                                 const char                *text,
                                                 GArray                   **ids,
                                                 GPtrArray                **tokens,
                                                 GError                   **error);
/* One call from a model path to ids, for `--text` options. It reads the
 * tokenizer files each time: a window keeps the PlTokenizer instead. */
GArray          *pl_tokenizer_encode_for_model  (const char                *path,
                                                 const char                *text,
                                                 GPtrArray                **tokens,
                                                 GError                   **error);
/* The text the ids stand for, as Hugging Face's decoders give it (BPE and
 * bytes: exact; WordPiece: pieces joined, "##" glued). Special tokens are
 * left out when SKIP_SPECIAL. Invalid UTF-8 from stray bytes is replaced by
 * U+FFFD. */
char            *pl_tokenizer_decode            (PlTokenizer               *self,
                                                 const int                 *ids,
                                                 gsize                      n_ids,
                                                 gboolean                   skip_special);
/* A readable label for one token: the text it stands for (a space for ▁
 * or Ġ, the byte of <0xNN>), with bytes that are only part of a character
 * written \xHH; special tokens and WordPiece pieces as they are spelt;
 * "#ID" for an id with no token. */
char            *pl_tokenizer_get_label         (PlTokenizer               *self,
                                                 int                        id);

PlTokenizerKind  pl_tokenizer_get_kind          (PlTokenizer               *self);
const char      *pl_tokenizer_get_kind_name     (PlTokenizer               *self);
/* The file(s) it was read from, for messages: "…/vocab.txt". */
const char      *pl_tokenizer_get_source        (PlTokenizer               *self);
/* One past the largest id. */
guint            pl_tokenizer_get_vocab_size    (PlTokenizer               *self);
/* The token string of ID, or NULL when there is none. */
const char      *pl_tokenizer_id_to_token       (PlTokenizer               *self,
                                                 int                        id);
/* The id of TOKEN, or -1. */
int              pl_tokenizer_token_to_id       (PlTokenizer               *self,
                                                 const char                *token);
gboolean         pl_tokenizer_is_special        (PlTokenizer               *self,
                                                 int                        id);

G_END_DECLS
