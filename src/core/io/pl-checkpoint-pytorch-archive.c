/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-checkpoint-pytorch-private.h"
#include "pl-error.h"
#include "pl-input-file.h"
#include "pl-zip.h"

/* The two layouts torch.save has written: where the pickles are and where
 * each storage's bytes begin. */

/* A state dict's pickle is ~130 bytes a tensor: a few MB for the largest. */
#define MAX_PICKLE_BYTES  ((gsize) 256 << 20)
/* torch.save's magic number (0x1950a86a20f9469cfc6c), little-endian, and
 * the protocol version of the legacy format. */
static const guint8 legacy_magic[10] = { 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19 };
#define LEGACY_PROTOCOL_VERSION 1001

/* The pickle at *OFFSET of a legacy file, read exactly (its end found
 * first, pl_pickle_find_end); *OFFSET moves past it. */
static PlPickle *
load_pickle_at (PlPytorchLoad  *load,
                guint64        *offset,
                GError        **error)
{
  const PlPytorchShard *shard = &g_array_index (load->self->shards, PlPytorchShard, load->shard);
  g_autoptr(GBytes) bytes = NULL;
  PlPickle *pickle;
  guint8 *buf;
  guint64 end;
  gsize len;

  if (!pl_pickle_find_end (shard->fd, shard->size, *offset, MAX_PICKLE_BYTES, shard->path, &end, error))
    return NULL;
  len = end - *offset;
  if (!pl_input_file_check_stored (shard->fd, *offset, len, shard->path, "its pickles", error))
    return NULL;
  buf = g_malloc (MAX (len, 1));
  if (!pl_checkpoint_read_exact (shard->fd, buf, len, *offset, shard->path, error))
    {
      g_free (buf);
      return NULL;
    }
  bytes = g_bytes_new_take (buf, len);
  if ((pickle = pl_pickle_load (bytes, 0, shard->path, NULL, error)) == NULL)
    return NULL;
  *offset += pl_pickle_get_end (pickle);
  return pickle;
}

/* The legacy format: the magic number, the protocol version and the
 * machine's description, each a pickle; the object's pickle; the sorted
 * keys of its storages, a pickle; then each storage as its element count
 * (8 bytes, little-endian) and its elements. */
gboolean
pl_checkpoint_pytorch_open_legacy (PlPytorchLoad     *load,
             GError  **error)
{
  const PlPytorchShard *shard = &g_array_index (load->self->shards, PlPytorchShard, load->shard);
  g_autoptr(PlPickle) magic = NULL;
  g_autoptr(PlPickle) version = NULL;
  g_autoptr(PlPickle) sys_info = NULL;
  g_autoptr(PlPickle) object = NULL;
  g_autoptr(PlPickle) keys = NULL;
  const PlPickleValue *value;
  guint64 offset = 0;

  magic = load_pickle_at (load, &offset, error);
  if (magic == NULL)
    return FALSE;
  value = pl_pickle_get_root (magic);
  if (value->kind != PL_PICKLE_BIG_INT || value->bytes.len != sizeof legacy_magic ||
      memcmp (value->bytes.data, legacy_magic, sizeof legacy_magic) != 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s is a pickle without torch.save’s magic number: not a PyTorch checkpoint", shard->path);
      return FALSE;
    }
  version = load_pickle_at (load, &offset, error);
  if (version == NULL)
    return FALSE;
  value = pl_pickle_get_root (version);
  if (value->kind != PL_PICKLE_INT || value->integer != LEGACY_PROTOCOL_VERSION)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: a legacy PyTorch checkpoint of an unknown protocol version", shard->path);
      return FALSE;
    }
  sys_info = load_pickle_at (load, &offset, error);
  if (sys_info == NULL)
    return FALSE;
  value = pl_pickle_dict_lookup (pl_pickle_get_root (sys_info), "little_endian");
  if (value != NULL && value->kind == PL_PICKLE_BOOL && !value->boolean)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s was saved on a big-endian machine; Poslens reads little-endian checkpoints", shard->path);
      return FALSE;
    }
  object = load_pickle_at (load, &offset, error);
  if (object == NULL)
    return FALSE;
  keys = load_pickle_at (load, &offset, error);
  if (keys == NULL)
    return FALSE;

  if (!pl_checkpoint_pytorch_register_storages (load, object, error))
    return FALSE;
  value = pl_pickle_get_root (keys);
  if (value->kind != PL_PICKLE_LIST && value->kind != PL_PICKLE_TUPLE)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the list of storages after the pickle is not a list (a damaged file)", shard->path);
      return FALSE;
    }
  for (guint i = 0; i < pl_pickle_value_get_length (value); i++)
    {
      const PlPickleValue *key_value = pl_pickle_value_get_item (value, i);
      g_autofree char *key = NULL;
      PlPytorchStorage *storage;
      guint8 header[8];
      guint64 numel = 0, nbytes;

      if (!pl_pickle_value_is_text (key_value))
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: the list of storages holds something other than keys", shard->path);
          return FALSE;
        }
      key = g_strndup (key_value->bytes.data, key_value->bytes.len);
      storage = pl_checkpoint_pytorch_storage_of (load, key);
      if (storage == NULL)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s lists storage %s, which no tensor uses (a damaged file)", shard->path, key);
          return FALSE;
        }
      if (storage->offset != G_MAXUINT64)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s lists storage %s twice", shard->path, key);
          return FALSE;
        }
      if (offset > shard->size || shard->size - offset < sizeof header)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s ends before storage %s (truncated?)", shard->path, key);
          return FALSE;
        }
      if (!pl_checkpoint_read_exact (shard->fd, header, sizeof header, offset, shard->path, error))
        return FALSE;
      for (guint b = 0; b < 8; b++)
        numel |= (guint64) header[b] << (8 * b);
      if (numel != storage->numel)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: storage %s holds %" G_GUINT64_FORMAT " elements where its tensors say %" G_GUINT64_FORMAT
                       " (a damaged file)", shard->path, key, numel, storage->numel);
          return FALSE;
        }
      offset += sizeof header;
      nbytes = numel * storage->type->elem_size;
      if (nbytes > shard->size - offset)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: storage %s of %" G_GUINT64_FORMAT " bytes ends past the end of the file (truncated?)",
                       shard->path, key, nbytes);
          return FALSE;
        }
      storage->offset = offset;
      offset += nbytes;
    }
  for (guint i = 0; i < load->self->storages->len; i++)
    {
      const PlPytorchStorage *storage = &g_array_index (load->self->storages, PlPytorchStorage, i);

      if (storage->shard == load->shard && storage->offset == G_MAXUINT64)
        {
          GHashTableIter iter;
          gpointer key, index;

          g_hash_table_iter_init (&iter, load->by_key);
          while (g_hash_table_iter_next (&iter, &key, &index))
            if (GPOINTER_TO_UINT (index) == i + 1)
              break;
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: a tensor uses storage %s, which the file does not hold", shard->path, (char *) key);
          return FALSE;
        }
    }
  return pl_checkpoint_pytorch_add_tensors (load, object, error);
}

/* The format version torch's reader accepts in ARCHIVE/version
 * (caffe2/serialize: kMinSupportedFileFormatVersion to kMax…). */
#define MIN_ZIP_VERSION 1
#define MAX_ZIP_VERSION 10

/* The layout torch's zip reader (PyTorchStreamReader) holds a file to: its
 * first entry's folder is the archive, every entry lies in it, and it has a
 * version record. *PREFIX is the archive's folder. */
static gboolean
check_archive (PlZip       *zip,
               const char  *path,
               char       **prefix,
               GError     **error)
{
  const PlZipEntry *first, *version;
  const char *slash;
  g_autofree char *name = NULL;
  char text[32] = { 0 };
  guint64 offset, number;
  char *end;

  if (pl_zip_get_n_entries (zip) == 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED, "%s is an empty zip: not a PyTorch checkpoint", path);
      return FALSE;
    }
  first = pl_zip_get_entry (zip, 0);
  slash = strchr (first->name, '/');
  if (slash == NULL || slash == first->name)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: the zip’s first entry, %s, is not in a folder, as torch.save puts everything: not a "
                   "PyTorch checkpoint", path, first->name);
      return FALSE;
    }
  *prefix = g_strndup (first->name, slash - first->name);
  if (strcmp (*prefix, ".") == 0 || strcmp (*prefix, "..") == 0 || strchr (*prefix, '\\') != NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: the zip’s folder is named “%s”, which torch.save never "
                   "writes", path, *prefix);
      return FALSE;
    }
  for (guint i = 1; i < pl_zip_get_n_entries (zip); i++)
    {
      const PlZipEntry *entry = pl_zip_get_entry (zip, i);

      if (strncmp (entry->name, *prefix, slash - first->name) != 0 || entry->name[slash - first->name] != '/')
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: entry %s lies outside the zip’s folder %s, where torch.save puts every entry",
                       path, entry->name, *prefix);
          return FALSE;
        }
    }
  name = g_strconcat (*prefix, "/version", NULL);
  version = pl_zip_find (zip, name);
  if (version == NULL)
    {
      g_autofree char *hidden = g_strconcat (*prefix, "/.data/version", NULL);

      version = pl_zip_find (zip, hidden);
    }
  if (version == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                   "%s: the zip has no %s, which torch.save writes and torch needs to load it", path, name);
      return FALSE;
    }
  if (version->size >= sizeof text)
    memcpy (text, "?", 2);
  else if (!pl_zip_locate (zip, version, &offset, error) ||
           !pl_checkpoint_read_exact (pl_zip_get_fd (zip), text, version->size, offset, path, error))
    return FALSE;
  number = g_ascii_strtoull (text, &end, 10);
  if (end == text || number < MIN_ZIP_VERSION || number > MAX_ZIP_VERSION)
    {
      g_autofree char *shown = g_strescape (text, NULL);

      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: its format version is “%s”; torch reads versions %d to %d", path, shown, MIN_ZIP_VERSION,
                   MAX_ZIP_VERSION);
      return FALSE;
    }
  return TRUE;
}

/* The zip format: ARCHIVE/data.pkl, one stored entry ARCHIVE/data/KEY per
 * storage, ARCHIVE/version, and ARCHIVE/byteorder in recent versions.
 * ARCHIVE is the file's name without its extension, or "archive". */
gboolean
pl_checkpoint_pytorch_open_zip (PlPytorchLoad     *load,
          GError  **error)
{
  const PlPytorchShard *shard = &g_array_index (load->self->shards, PlPytorchShard, load->shard);
  g_autoptr(PlZip) zip = NULL;
  g_autoptr(PlPickle) pickle = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *prefix = NULL;
  g_autofree char *what = NULL;
  g_autofree guint8 *buf = NULL;
  const PlZipEntry *data_pkl = NULL;
  const PlZipEntry *byteorder;
  GHashTableIter iter;
  gpointer key, index;
  guint64 offset;

  zip = pl_zip_open (shard->fd, shard->size, shard->path, error);
  if (zip == NULL || !check_archive (zip, shard->path, &prefix, error))
    return FALSE;
  {
    g_autofree char *name = g_strconcat (prefix, "/data.pkl", NULL);

    if ((data_pkl = pl_zip_find (zip, name)) == NULL)
      {
        g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                     "%s is a zip without data.pkl in its folder %s: not a PyTorch checkpoint", shard->path, prefix);
        return FALSE;
      }
  }

  /* The byte order of the storages, when recorded: little or big, as torch
   * reads it; anything else PyTorch 2 refuses too (1.13 reads no record). */
  {
    g_autofree char *name = g_strconcat (prefix, "/byteorder", NULL);
    char order[8] = { 0 };

    byteorder = pl_zip_find (zip, name);
    if (byteorder != NULL)
      {
        if (byteorder->size >= sizeof order)
          {
            g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                         "%s: its byte order record holds %" G_GUINT64_FORMAT " bytes, neither little nor big "
                         "(PyTorch 2 refuses it too; 1.13 ignores the record)", shard->path, byteorder->size);
            return FALSE;
          }
        if (!pl_zip_locate (zip, byteorder, &offset, error) ||
                 !pl_checkpoint_read_exact (shard->fd, order, byteorder->size, offset, shard->path, error))
          return FALSE;
        if (strcmp (order, "big") == 0)
          {
            g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                         "%s was saved on a big-endian machine; Poslens reads little-endian checkpoints",
                         shard->path);
            return FALSE;
          }
        if (strcmp (order, "little") != 0)
          {
            g_autofree char *shown = g_strescape (order, NULL);

            g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                         "%s: its byte order record says “%s”, neither little nor big (PyTorch 2 refuses it "
                         "too; 1.13 ignores the record)",
                         shard->path, shown);
            return FALSE;
          }
      }
  }

  if (!pl_zip_locate (zip, data_pkl, &offset, error))
    return FALSE;
  if (data_pkl->size > MAX_PICKLE_BYTES)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "%s: %s is %" G_GUINT64_FORMAT " bytes, more than any state dict’s pickle",
                   shard->path, data_pkl->name, data_pkl->size);
      return FALSE;
    }
  if (!pl_input_file_check_stored (shard->fd, offset, data_pkl->size, shard->path, data_pkl->name, error))
    return FALSE;
  buf = g_malloc (MAX (data_pkl->size, 1));
  if (!pl_checkpoint_read_exact (shard->fd, buf, data_pkl->size, offset, shard->path, error))
    return FALSE;
  bytes = g_bytes_new_take (g_steal_pointer (&buf), data_pkl->size);
  what = g_strdup_printf ("%s: %s", shard->path, data_pkl->name);
  pickle = pl_pickle_load (bytes, 0, what, NULL, error);
  if (pickle == NULL)
    return FALSE;
  if (!pl_checkpoint_pytorch_register_storages (load, pickle, error))
    return FALSE;

  g_hash_table_iter_init (&iter, load->by_key);
  while (g_hash_table_iter_next (&iter, &key, &index))
    {
      PlPytorchStorage *storage = &g_array_index (load->self->storages, PlPytorchStorage, GPOINTER_TO_UINT (index) - 1);
      g_autofree char *name = g_strconcat (prefix, "/data/", (const char *) key, NULL);
      const PlZipEntry *entry = pl_zip_find (zip, name);

      if (entry == NULL)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: a tensor uses storage %s, but the zip has no entry %s", shard->path,
                       (const char *) key, name);
          return FALSE;
        }
      if (!pl_zip_locate (zip, entry, &storage->offset, error))
        return FALSE;
      if (entry->size / storage->type->elem_size != storage->numel || entry->size % storage->type->elem_size != 0)
        {
          g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
                       "%s: entry %s holds %" G_GUINT64_FORMAT " bytes, but its tensors say %" G_GUINT64_FORMAT
                       " elements of %s", shard->path, name, entry->size, storage->numel, storage->type->name);
          return FALSE;
        }
    }
  return pl_checkpoint_pytorch_add_tensors (load, pickle, error);
}

