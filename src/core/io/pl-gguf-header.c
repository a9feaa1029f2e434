/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-gguf-header.h"

/* Arrays inside arrays deeper than this are not metadata anyone writes. */
#define MAX_DEPTH 4
/* ggml's GGML_MAX_DIMS */
#define MAX_RANK 4

struct _PlGgufHeader
{
  guint32       version;
  guint64       alignment;
  guint64       data_offset;
  GPtrArray    *keys;        /* char *, in the file's order */
  GHashTable   *values;      /* key (borrowed from keys) → PlGgufValue */
  GArray       *tensors;     /* PlGgufTensor */
};

typedef struct
{
  const char *name;
  guint       elements;     /* per block */
  guint       bytes;        /* per block */
  int         stored;       /* PlStoredType, or -1: listed, refused when read */
  PlDType     dtype;
} GgmlType;

/* ggml.h's enum ggml_type; holes are numbers ggml no longer allows in files */
static const GgmlType ggml_types[] = {
  [0] = { "F32", 1, 4, PL_STORED_F32, PL_DTYPE_F32 },
  [1] = { "F16", 1, 2, PL_STORED_F16, PL_DTYPE_F16 },
  [2] = { "Q4_0", 32, 18, PL_STORED_Q4_0, PL_DTYPE_QUANTIZED },
  [3] = { "Q4_1", 32, 20, PL_STORED_Q4_1, PL_DTYPE_QUANTIZED },
  [6] = { "Q5_0", 32, 22, PL_STORED_Q5_0, PL_DTYPE_QUANTIZED },
  [7] = { "Q5_1", 32, 24, PL_STORED_Q5_1, PL_DTYPE_QUANTIZED },
  [8] = { "Q8_0", 32, 34, PL_STORED_Q8_0, PL_DTYPE_QUANTIZED },
  [9] = { "Q8_1", 32, 36, -1, PL_DTYPE_OTHER },
  [10] = { "Q2_K", 256, 84, PL_STORED_Q2_K, PL_DTYPE_QUANTIZED },
  [11] = { "Q3_K", 256, 110, PL_STORED_Q3_K, PL_DTYPE_QUANTIZED },
  [12] = { "Q4_K", 256, 144, PL_STORED_Q4_K, PL_DTYPE_QUANTIZED },
  [13] = { "Q5_K", 256, 176, PL_STORED_Q5_K, PL_DTYPE_QUANTIZED },
  [14] = { "Q6_K", 256, 210, PL_STORED_Q6_K, PL_DTYPE_QUANTIZED },
  [15] = { "Q8_K", 256, 292, -1, PL_DTYPE_OTHER },
  [16] = { "IQ2_XXS", 256, 66, -1, PL_DTYPE_OTHER },
  [17] = { "IQ2_XS", 256, 74, -1, PL_DTYPE_OTHER },
  [18] = { "IQ3_XXS", 256, 98, -1, PL_DTYPE_OTHER },
  [19] = { "IQ1_S", 256, 50, -1, PL_DTYPE_OTHER },
  [20] = { "IQ4_NL", 32, 18, -1, PL_DTYPE_OTHER },
  [21] = { "IQ3_S", 256, 110, -1, PL_DTYPE_OTHER },
  [22] = { "IQ2_S", 256, 82, -1, PL_DTYPE_OTHER },
  [23] = { "IQ4_XS", 256, 136, -1, PL_DTYPE_OTHER },
  [24] = { "I8", 1, 1, -1, PL_DTYPE_OTHER },
  [25] = { "I16", 1, 2, -1, PL_DTYPE_OTHER },
  [26] = { "I32", 1, 4, -1, PL_DTYPE_OTHER },
  [27] = { "I64", 1, 8, -1, PL_DTYPE_OTHER },
  [28] = { "F64", 1, 8, PL_STORED_F32, PL_DTYPE_F64 },
  [29] = { "IQ1_M", 256, 56, -1, PL_DTYPE_OTHER },
  [30] = { "BF16", 1, 2, PL_STORED_BF16, PL_DTYPE_BF16 },
  [34] = { "TQ1_0", 256, 54, -1, PL_DTYPE_OTHER },
  [35] = { "TQ2_0", 256, 66, -1, PL_DTYPE_OTHER },
  [39] = { "MXFP4", 32, 17, -1, PL_DTYPE_OTHER },
};

static const GgmlType *
ggml_type (guint32 type)
{
  return type < G_N_ELEMENTS (ggml_types) && ggml_types[type].name != NULL ? &ggml_types[type] : NULL;
}

const char *
pl_gguf_type_name (guint32 type)
{
  const GgmlType *t = ggml_type (type);

  return t ? t->name : NULL;
}

gboolean
pl_gguf_type_is_readable (guint32       type,
                          PlStoredType *stored,
                          PlDType      *dtype)
{
  const GgmlType *t = ggml_type (type);

  if (t == NULL || t->stored < 0)
    return FALSE;
  if (stored != NULL)
    *stored = (PlStoredType) t->stored;
  if (dtype != NULL)
    *dtype = t->dtype;
  return TRUE;
}

const char *
pl_gguf_readable_types (void)
{
  return "F32, F16, BF16, F64, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K and Q6_K";
}

/* A cursor over the file's bytes: every read checks what is left first. */
typedef struct
{
  const guint8 *data;
  gsize         size;
  gsize         pos;
  const char   *path;
} Cursor;

static gboolean
truncated (Cursor      *c,
           const char  *what,
           GError     **error)
{
  g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
               "%s: the GGUF header ends inside %s at byte %" G_GSIZE_FORMAT " (the file has %" G_GSIZE_FORMAT
               " bytes; truncated?)", c->path, what, c->pos, c->size);
  return FALSE;
}

static gboolean
read_bytes (Cursor        *c,
            gsize          n,
            const guint8 **out,
            const char    *what,
            GError       **error)
{
  if (n > c->size - c->pos)
    return truncated (c, what, error);
  *out = c->data + c->pos;
  c->pos += n;
  return TRUE;
}

static gboolean
read_u32 (Cursor      *c,
          guint32     *out,
          const char  *what,
          GError     **error)
{
  const guint8 *p;

  if (!read_bytes (c, 4, &p, what, error))
    return FALSE;
  memcpy (out, p, 4);
  *out = GUINT32_FROM_LE (*out);
  return TRUE;
}

static gboolean
read_u64 (Cursor      *c,
          guint64     *out,
          const char  *what,
          GError     **error)
{
  const guint8 *p;

  if (!read_bytes (c, 8, &p, what, error))
    return FALSE;
  memcpy (out, p, 8);
  *out = GUINT64_FROM_LE (*out);
  return TRUE;
}

/* A string: u64 length, then its bytes. */
static gboolean
read_string (Cursor        *c,
             const guint8 **bytes,
             guint64       *len,
             const char    *what,
             GError       **error)
{
  if (!read_u64 (c, len, what, error))
    return FALSE;
  if (*len > c->size - c->pos)
    return truncated (c, what, error);
  return read_bytes (c, *len, bytes, what, error);
}

/* A name, as C text: valid UTF-8 without NUL bytes, at most 65535 bytes. */
static char *
read_name (Cursor      *c,
           const char  *what,
           GError     **error)
{
  const guint8 *bytes;
  guint64 len;

  if (!read_string (c, &bytes, &len, what, error))
    return NULL;
  if (len > 65535 || memchr (bytes, '\0', len) != NULL || !g_utf8_validate ((const char *) bytes, len, NULL))
    {
      g_autofree char *shown = pl_escape_text ((const char *) bytes, MIN (len, 80));

      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: %s “%s%s” is not a name (UTF-8 text of at most "
                   "65535 bytes)", c->path, what, shown, len > 80 ? "…" : "");
      return NULL;
    }
  return g_strndup ((const char *) bytes, len);
}

static const guint8 scalar_sizes[PL_GGUF_N_TYPES] = {
  [PL_GGUF_UINT8] = 1, [PL_GGUF_INT8] = 1, [PL_GGUF_UINT16] = 2, [PL_GGUF_INT16] = 2,
  [PL_GGUF_UINT32] = 4, [PL_GGUF_INT32] = 4, [PL_GGUF_FLOAT32] = 4, [PL_GGUF_BOOL] = 1,
  [PL_GGUF_UINT64] = 8, [PL_GGUF_INT64] = 8, [PL_GGUF_FLOAT64] = 8,
};

/* The scalar of TYPE at P into VALUE. */
static void
decode_scalar (PlGgufType    type,
               const guint8 *p,
               PlGgufValue  *value)
{
  guint64 bits = 0;

  memcpy (&bits, p, scalar_sizes[type]);
  bits = GUINT64_FROM_LE (bits);
#if G_BYTE_ORDER == G_BIG_ENDIAN
  bits >>= 8 * (8 - scalar_sizes[type]);
#endif
  value->type = type;
  value->is_signed = FALSE;
  switch (type)
    {
    case PL_GGUF_INT8:
      value->i = (gint8) bits, value->is_signed = TRUE;
      break;
    case PL_GGUF_INT16:
      value->i = (gint16) bits, value->is_signed = TRUE;
      break;
    case PL_GGUF_INT32:
      value->i = (gint32) bits, value->is_signed = TRUE;
      break;
    case PL_GGUF_INT64:
      value->i = (gint64) bits, value->is_signed = TRUE;
      break;
    case PL_GGUF_FLOAT32:
      {
        guint32 b32 = (guint32) bits;
        float f;

        memcpy (&f, &b32, 4);
        value->f = f;
      }
      break;
    case PL_GGUF_FLOAT64:
      memcpy (&value->f, &bits, 8);
      break;
    default:
      value->u = bits;
    }
  if (value->is_signed)
    value->f = (double) value->i;
  else if (type != PL_GGUF_FLOAT32 && type != PL_GGUF_FLOAT64)
    value->f = (double) value->u;
}

static gboolean read_value (Cursor *c, PlGgufType type, PlGgufValue *value, guint depth, const char *key,
                            GError **error);

static gboolean
bad_type (Cursor      *c,
          const char  *key,
          guint32      type,
          GError     **error)
{
  g_autofree char *shown = pl_escape_text (key, -1);

  g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: metadata “%s” has the unknown value type %u",
               c->path, shown, type);
  return FALSE;
}

/* An array: element type, count, elements. Fixed-size elements are
 * skipped at once; strings and arrays one by one, each checked. */
static gboolean
read_array (Cursor       *c,
            PlGgufValue  *value,
            guint         depth,
            const char   *key,
            GError      **error)
{
  guint32 elem;
  guint64 n;
  gsize start;

  if (!read_u32 (c, &elem, "an array's type", error) || !read_u64 (c, &n, "an array's length", error))
    return FALSE;
  if (elem >= PL_GGUF_N_TYPES)
    return bad_type (c, key, elem, error);
  if (depth >= MAX_DEPTH && elem == PL_GGUF_ARRAY)
    {
      g_autofree char *shown = pl_escape_text (key, -1);

      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED, "%s: metadata “%s” nests arrays more than %d deep",
                   c->path, shown, MAX_DEPTH);
      return FALSE;
    }
  value->type = PL_GGUF_ARRAY;
  value->elem_type = elem;
  value->len = n;
  value->bytes = c->data + c->pos;
  start = c->pos;
  if (elem != PL_GGUF_STRING && elem != PL_GGUF_ARRAY)
    {
      const guint8 *skip;

      if (n > (c->size - c->pos) / scalar_sizes[elem])
        return truncated (c, "an array", error);
      if (!read_bytes (c, n * scalar_sizes[elem], &skip, "an array", error))
        return FALSE;
    }
  else
    {
      /* each element takes 8 bytes at least: a count past that is false */
      if (n > (c->size - c->pos) / 8)
        return truncated (c, "an array", error);
      for (guint64 i = 0; i < n; i++)
        {
          PlGgufValue item;

          if (!read_value (c, elem, &item, depth + 1, key, error))
            return FALSE;
        }
    }
  value->array_bytes = c->pos - start;
  return TRUE;
}

static gboolean
read_value (Cursor       *c,
            PlGgufType    type,
            PlGgufValue  *value,
            guint         depth,
            const char   *key,
            GError      **error)
{
  const guint8 *p;

  memset (value, 0, sizeof *value);
  value->type = type;
  if (type == PL_GGUF_STRING)
    return read_string (c, &value->bytes, &value->len, "a string", error);
  if (type == PL_GGUF_ARRAY)
    return read_array (c, value, depth, key, error);
  if (!read_bytes (c, scalar_sizes[type], &p, "a value", error))
    return FALSE;
  decode_scalar (type, p, value);
  return TRUE;
}

void
pl_gguf_header_free (PlGgufHeader *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->values, g_hash_table_unref);
  g_clear_pointer (&self->keys, g_ptr_array_unref);
  if (self->tensors != NULL)
    {
      for (guint i = 0; i < self->tensors->len; i++)
        g_free (g_array_index (self->tensors, PlGgufTensor, i).name);
      g_array_unref (self->tensors);
    }
  g_free (self);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlGgufHeader, pl_gguf_header_free)

static gboolean
read_metadata (PlGgufHeader  *self,
               Cursor        *c,
               guint64        n_kv,
               GError       **error)
{
  /* a key/value pair takes 13 bytes at least */
  if (n_kv > (c->size - c->pos) / 13)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the GGUF header claims %" G_GUINT64_FORMAT " metadata keys, more than its %" G_GSIZE_FORMAT
                   " bytes can hold (truncated or damaged)", c->path, n_kv, c->size);
      return FALSE;
    }
  for (guint64 k = 0; k < n_kv; k++)
    {
      g_autofree char *key = read_name (c, "a metadata key", error);
      PlGgufValue *value;
      guint32 type;

      if (key == NULL || !read_u32 (c, &type, "a value type", error))
        return FALSE;
      if (type >= PL_GGUF_N_TYPES)
        return bad_type (c, key, type, error);
      if (g_hash_table_contains (self->values, key))
        {
          g_autofree char *shown = pl_escape_text (key, -1);

          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: metadata “%s” appears twice", c->path, shown);
          return FALSE;
        }
      value = g_new0 (PlGgufValue, 1);
      if (!read_value (c, type, value, 0, key, error))
        {
          g_free (value);
          return FALSE;
        }
      g_ptr_array_add (self->keys, key);
      g_hash_table_insert (self->values, g_steal_pointer (&key), value);
    }
  return TRUE;
}

static gboolean
read_alignment (PlGgufHeader  *self,
                const char    *path,
                GError       **error)
{
  const PlGgufValue *value = pl_gguf_header_lookup (self, "general.alignment");
  guint64 alignment = 32;

  /* ggml: a power of two; the specification: a multiple of 8, 32 if unsaid */
  if (value != NULL && (!pl_gguf_value_get_uint (value, &alignment) || alignment == 0 ||
                        (alignment & (alignment - 1)) != 0 || alignment > (1u << 30)))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: general.alignment must be a power of two (ggml’s rule)", path);
      return FALSE;
    }
  self->alignment = alignment;
  return TRUE;
}

static gboolean
read_tensor_info (PlGgufHeader  *self,
                  Cursor        *c,
                  PlGgufTensor  *t,
                  GError       **error)
{
  g_autofree char *shown = NULL;
  const GgmlType *type;
  guint32 rank;
  guint64 count = 1;

  if (!(t->name = read_name (c, "a tensor name", error)))
    return FALSE;
  shown = pl_escape_text (t->name, -1);
  if (!read_u32 (c, &rank, "a tensor's rank", error))
    return FALSE;
  if (rank > MAX_RANK)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: tensor “%s” has %u dimensions; GGUF allows at most %d",
                   c->path, shown, rank, MAX_RANK);
      return FALSE;
    }
  t->rank = rank;
  for (guint i = 0; i < rank; i++)
    {
      if (!read_u64 (c, &t->dims[i], "a tensor's shape", error))
        return FALSE;
      if (t->dims[i] > G_MAXINT64 || (t->dims[i] != 0 && count > G_MAXINT64 / t->dims[i]))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: the shape of tensor “%s” overflows", c->path, shown);
          return FALSE;
        }
      count *= t->dims[i];
    }
  if (!read_u32 (c, &t->ggml_type, "a tensor's type", error) || !read_u64 (c, &t->offset, "a tensor's offset", error))
    return FALSE;
  if (!(type = ggml_type (t->ggml_type)))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: tensor “%s” has ggml type %u, which ggml does not define or no longer allows in files",
                   c->path, shown, t->ggml_type);
      return FALSE;
    }
  /* a tensor of rank 0 is one element */
  if ((rank ? t->dims[0] : 1) % type->elements != 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: tensor “%s” is %s, whose rows are blocks of %u, but its rows are %" G_GUINT64_FORMAT " long",
                   c->path, shown, type->name, type->elements, rank ? t->dims[0] : 1);
      return FALSE;
    }
  t->nbytes = count / type->elements * type->bytes;
  return TRUE;
}

typedef struct
{
  guint64     begin;
  guint64     end;
  const char *name;
} Range;

static int
compare_ranges (gconstpointer a,
                gconstpointer b)
{
  const Range *ra = a, *rb = b;

  return ra->begin < rb->begin ? -1 : ra->begin > rb->begin ? 1 : 0;
}

/* Each tensor aligned, inside the file, and none sharing bytes. */
static gboolean
check_extents (PlGgufHeader  *self,
               Cursor        *c,
               GError       **error)
{
  g_autoptr(GArray) ranges = g_array_new (FALSE, FALSE, sizeof (Range));
  guint64 data_size = self->data_offset <= c->size ? c->size - self->data_offset : 0;
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < self->tensors->len; i++)
    {
      const PlGgufTensor *t = &g_array_index (self->tensors, PlGgufTensor, i);
      g_autofree char *shown = pl_escape_text (t->name, -1);
      Range r = { t->offset, t->offset + t->nbytes, t->name };

      if (!g_hash_table_add (names, t->name))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: tensor “%s” appears twice", c->path, shown);
          return FALSE;
        }
      if (t->offset % self->alignment != 0)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: tensor “%s” starts at byte %" G_GUINT64_FORMAT " of the data, which is not a multiple "
                       "of the alignment %" G_GUINT64_FORMAT, c->path, shown, t->offset, self->alignment);
          return FALSE;
        }
      if (t->offset > data_size || t->nbytes > data_size - t->offset)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: tensor “%s” (%" G_GUINT64_FORMAT " bytes at byte %" G_GUINT64_FORMAT " of the data) "
                       "ends past the end of the file (%" G_GUINT64_FORMAT " bytes of data; truncated?)",
                       c->path, shown, t->nbytes, t->offset, data_size);
          return FALSE;
        }
      if (t->nbytes > 0)
        g_array_append_val (ranges, r);
    }
  g_array_sort (ranges, compare_ranges);
  for (guint i = 1; i < ranges->len; i++)
    {
      const Range *prev = &g_array_index (ranges, Range, i - 1), *cur = &g_array_index (ranges, Range, i);

      if (cur->begin < prev->end)
        {
          g_autofree char *a = pl_escape_text (prev->name, -1);
          g_autofree char *b = pl_escape_text (cur->name, -1);

          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: tensors “%s” and “%s” overlap in the file",
                       c->path, a, b);
          return FALSE;
        }
    }
  return TRUE;
}

PlGgufHeader *
pl_gguf_header_parse (const guint8  *data,
                      gsize          size,
                      const char    *path,
                      GError       **error)
{
  g_autoptr(PlGgufHeader) self = g_new0 (PlGgufHeader, 1);
  Cursor c = { data, size, 0, path };
  const guint8 *magic;
  guint64 n_tensors, n_kv;

  self->keys = g_ptr_array_new ();
  self->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->tensors = g_array_new (FALSE, TRUE, sizeof (PlGgufTensor));

  if (size < 4 || !read_bytes (&c, 4, &magic, "the magic", error) || memcmp (magic, "GGUF", 4) != 0)
    {
      g_clear_error (error);
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s is not a GGUF file (it does not start with “GGUF”)", path);
      return NULL;
    }
  if (!read_u32 (&c, &self->version, "the version", error))
    return NULL;
  if (self->version != 2 && self->version != 3)
    {
      if ((self->version & 0xffff) == 0 && self->version != 0)
        g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                     "%s is a big-endian GGUF file; Poslens reads little-endian ones, as llama.cpp writes them", path);
      else if (self->version == 1)
        g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                     "%s is a GGUF file of version 1 (from before September 2023), which neither Poslens nor "
                     "llama.cpp reads; convert the model again", path);
      else
        g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                     "%s is a GGUF file of version %u; Poslens reads versions 2 and 3", path, self->version);
      return NULL;
    }
  if (!read_u64 (&c, &n_tensors, "the tensor count", error) || !read_u64 (&c, &n_kv, "the key count", error) ||
      !read_metadata (self, &c, n_kv, error) || !read_alignment (self, path, error))
    return NULL;

  /* a tensor info takes 24 bytes at least */
  if (n_tensors > (c.size - c.pos) / 24)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the GGUF header claims %" G_GUINT64_FORMAT " tensors, more than its %" G_GSIZE_FORMAT
                   " bytes can hold (truncated or damaged)", path, n_tensors, size);
      return NULL;
    }
  for (guint64 i = 0; i < n_tensors; i++)
    {
      PlGgufTensor t = { 0 };

      if (!read_tensor_info (self, &c, &t, error))
        {
          g_free (t.name);
          return NULL;
        }
      g_array_append_val (self->tensors, t);
    }
  self->data_offset = c.pos + (self->alignment - c.pos % self->alignment) % self->alignment;
  if (!check_extents (self, &c, error))
    return NULL;
  return g_steal_pointer (&self);
}

guint32
pl_gguf_header_get_version (const PlGgufHeader *self)
{
  return self->version;
}

guint64
pl_gguf_header_get_alignment (const PlGgufHeader *self)
{
  return self->alignment;
}

guint64
pl_gguf_header_get_data_offset (const PlGgufHeader *self)
{
  return self->data_offset;
}

guint
pl_gguf_header_get_n_keys (const PlGgufHeader *self)
{
  return self->keys->len;
}

const char *
pl_gguf_header_get_key (const PlGgufHeader *self,
                        guint               i)
{
  g_return_val_if_fail (i < self->keys->len, NULL);
  return g_ptr_array_index (self->keys, i);
}

const PlGgufValue *
pl_gguf_header_lookup (const PlGgufHeader *self,
                       const char         *key)
{
  return g_hash_table_lookup (self->values, key);
}

guint
pl_gguf_header_get_n_tensors (const PlGgufHeader *self)
{
  return self->tensors->len;
}

const PlGgufTensor *
pl_gguf_header_get_tensor (const PlGgufHeader *self,
                           guint               i)
{
  g_return_val_if_fail (i < self->tensors->len, NULL);
  return &g_array_index (self->tensors, PlGgufTensor, i);
}

gboolean
pl_gguf_value_get_uint (const PlGgufValue *value,
                        guint64           *out)
{
  if (value == NULL || value->type == PL_GGUF_FLOAT32 || value->type == PL_GGUF_FLOAT64 ||
      value->type == PL_GGUF_STRING || value->type == PL_GGUF_ARRAY || value->type == PL_GGUF_BOOL)
    return FALSE;
  if (value->is_signed)
    {
      if (value->i < 0)
        return FALSE;
      *out = (guint64) value->i;
    }
  else
    *out = value->u;
  return TRUE;
}

gboolean
pl_gguf_value_get_double (const PlGgufValue *value,
                          double            *out)
{
  if (value == NULL || value->type == PL_GGUF_STRING || value->type == PL_GGUF_ARRAY ||
      value->type == PL_GGUF_BOOL)
    return FALSE;
  *out = value->f;
  return TRUE;
}

gboolean
pl_gguf_value_get_bool (const PlGgufValue *value,
                        gboolean          *out)
{
  if (value == NULL || value->type != PL_GGUF_BOOL)
    return FALSE;
  *out = value->u != 0;
  return TRUE;
}

char *
pl_gguf_value_dup_string (const PlGgufValue *value)
{
  if (value == NULL || value->type != PL_GGUF_STRING || memchr (value->bytes, '\0', value->len) != NULL ||
      !g_utf8_validate ((const char *) value->bytes, value->len, NULL))
    return NULL;
  return g_strndup ((const char *) value->bytes, value->len);
}

gboolean
pl_gguf_array_get_number (const PlGgufValue *value,
                          guint64            i,
                          double            *out)
{
  PlGgufValue item;

  if (value == NULL || value->type != PL_GGUF_ARRAY || i >= value->len || value->elem_type == PL_GGUF_STRING ||
      value->elem_type == PL_GGUF_ARRAY || value->elem_type == PL_GGUF_BOOL)
    return FALSE;
  decode_scalar (value->elem_type, value->bytes + i * scalar_sizes[value->elem_type], &item);
  *out = item.f;
  return TRUE;
}

GStrv
pl_gguf_array_dup_strings (const PlGgufValue  *value,
                           const char         *path,
                           const char         *key,
                           GError            **error)
{
  g_autoptr(GPtrArray) out = NULL;
  Cursor c;

  if (value == NULL || value->type != PL_GGUF_ARRAY || value->elem_type != PL_GGUF_STRING)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: %s is not an array of strings", path, key);
      return NULL;
    }
  /* the array was walked once when the header was read: its bounds hold */
  c = (Cursor) { value->bytes, value->array_bytes, 0, path };
  out = g_ptr_array_new_full (value->len + 1, g_free);
  for (guint64 i = 0; i < value->len; i++)
    {
      const guint8 *bytes;
      guint64 len;

      if (!read_string (&c, &bytes, &len, key, error))
        return NULL;
      if (memchr (bytes, '\0', len) != NULL || !g_utf8_validate ((const char *) bytes, len, NULL))
        {
          g_autofree char *shown = pl_escape_text ((const char *) bytes, MIN (len, 80));

          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: element %" G_GUINT64_FORMAT " of %s (“%s”) is "
                       "not text (invalid UTF-8 or a NUL byte)", path, i, key, shown);
          return NULL;
        }
      g_ptr_array_add (out, g_strndup ((const char *) bytes, len));
    }
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}
