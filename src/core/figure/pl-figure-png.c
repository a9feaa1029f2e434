/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gio/gio.h>

#include "pl-figure-private.h"

/* A small PNG writer for the figures. Cairo's own spends most of an export
 * in zlib at its default level with one filter for every row; here each row
 * gets the cheapest of three filters (heatmap cells repeat down whole rows,
 * which the "up" filter turns into runs of zeros) and deflate runs at a fast
 * level, through GIO's zlib. The image is opaque RGB and carries its DPI. */

/* Level 1: on the demo heatmap 3.5× faster than cairo's writer, files 10 % larger. */
#define DEFLATE_LEVEL 1

static guint32 crc_table[256];

static gpointer
make_crc_table (gpointer data)
{
  for (guint32 n = 0; n < 256; n++)
    {
      guint32 c = n;

      for (int k = 0; k < 8; k++)
        c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      crc_table[n] = c;
    }
  return NULL;
}

static guint32
crc_update (guint32       crc,
            const guint8 *data,
            gsize         len)
{
  for (gsize i = 0; i < len; i++)
    crc = crc_table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

static void
put_be32 (guint8  *p,
          guint32  v)
{
  p[0] = v >> 24;
  p[1] = v >> 16;
  p[2] = v >> 8;
  p[3] = v;
}

static void
append_chunk (GByteArray   *out,
              const char   *type,
              const guint8 *data,
              gsize         len)
{
  guint8 head[8], tail[4];
  guint32 crc;

  put_be32 (head, (guint32) len);
  memcpy (head + 4, type, 4);
  crc = crc_update (0xffffffffu, head + 4, 4);
  crc = crc_update (crc, data, len) ^ 0xffffffffu;
  put_be32 (tail, crc);
  g_byte_array_append (out, head, 8);
  g_byte_array_append (out, data, (guint) len);
  g_byte_array_append (out, tail, 4);
}

static guint
cost (const guint8 *row,
      gsize         len)
{
  guint sum = 0;

  /* Bytes read as signed: small differences either way are cheap to deflate. */
  for (gsize i = 0; i < len; i++)
    sum += row[i] < 128 ? row[i] : 256 - row[i];
  return sum;
}

/* One row of the opaque image as RGB behind its filter byte, in DST. */
static void
filter_row (const guint32 *px,
            int            w,
            gboolean       first,
            guint8        *prev,
            guint8        *cur,
            guint8        *sub,
            guint8        *up,
            guint8        *dst)
{
  gsize row_len = (gsize) w * 3;
  guint c_none, c_sub, c_up;

  for (int x = 0; x < w; x++)
    {
      /* Opaque, so premultiplied is plain RGB. */
      cur[3 * x] = px[x] >> 16;
      cur[3 * x + 1] = px[x] >> 8;
      cur[3 * x + 2] = px[x];
    }
  for (gsize i = 0; i < row_len; i++)
    {
      sub[i] = cur[i] - (i >= 3 ? cur[i - 3] : 0);
      up[i] = cur[i] - prev[i];
    }
  c_none = cost (cur, row_len);
  c_sub = cost (sub, row_len);
  c_up = first ? G_MAXUINT : cost (up, row_len);
  if (c_up <= c_sub && c_up <= c_none)
    {
      dst[0] = 2;
      memcpy (dst + 1, up, row_len);
    }
  else if (c_sub <= c_none)
    {
      dst[0] = 1;
      memcpy (dst + 1, sub, row_len);
    }
  else
    {
      dst[0] = 0;
      memcpy (dst + 1, cur, row_len);
    }
  memcpy (prev, cur, row_len);
}

struct _PlPngWriter
{
  GZlibCompressor  *zlib;
  GByteArray       *chunk;      /* reused for every chunk */
  PlFigureWriteFunc write;
  gpointer          closure;
  int               width;
  int               height;
  int               rows_done;
  guint8           *prev;
  guint8           *cur;
  guint8           *sub;
  guint8           *up;
  guint8           *band;
  gsize             band_rows;
  guint8            out[65536];
};

static gboolean
write_failed (GError **error)
{
  if (error != NULL && *error == NULL)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "write failed");
  return FALSE;
}

static gboolean
emit_chunk (PlPngWriter  *self,
            const char   *type,
            const guint8 *data,
            gsize         len)
{
  g_byte_array_set_size (self->chunk, 0);
  append_chunk (self->chunk, type, data, len);
  return self->write (self->closure, self->chunk->data, self->chunk->len);
}

/* Feeds DATA to deflate; every full output buffer leaves as an IDAT chunk,
 * so neither the filtered image nor the compressed file is ever held whole. */
static gboolean
compress (PlPngWriter   *self,
          const guint8  *data,
          gsize          len,
          gboolean       at_end,
          GError       **error)
{
  for (;;)
    {
      gsize read = 0, written = 0;
      GConverterResult r = g_converter_convert (G_CONVERTER (self->zlib), data, len, self->out, sizeof self->out,
                                                at_end ? G_CONVERTER_INPUT_AT_END : G_CONVERTER_NO_FLAGS,
                                                &read, &written, error);

      if (r == G_CONVERTER_ERROR)
        return FALSE;
      data += read;
      len -= read;
      if (written > 0 && !emit_chunk (self, "IDAT", self->out, written))
        return write_failed (error);
      if (r == G_CONVERTER_FINISHED || (!at_end && len == 0))
        return TRUE;
    }
}

void
pl_png_writer_free (PlPngWriter *self)
{
  g_clear_object (&self->zlib);
  g_clear_pointer (&self->chunk, g_byte_array_unref);
  g_free (self->prev);
  g_free (self->cur);
  g_free (self->sub);
  g_free (self->up);
  g_free (self->band);
  g_free (self);
}

PlPngWriter *
pl_png_writer_new (int                width,
                   int                height,
                   double             dpi,
                   PlFigureWriteFunc  write,
                   gpointer           closure,
                   GError           **error)
{
  static GOnce once = G_ONCE_INIT;
  static const guint8 signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  g_autoptr(PlPngWriter) self = g_new0 (PlPngWriter, 1);
  guint32 ppm = (guint32) round (dpi / 0.0254);
  gsize row_len = (gsize) width * 3;
  guint8 ihdr[13], phys[9];

  g_once (&once, make_crc_table, NULL);

  self->zlib = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_ZLIB, DEFLATE_LEVEL);
  self->chunk = g_byte_array_new ();
  self->write = write;
  self->closure = closure;
  self->width = width;
  self->height = height;
  self->prev = g_malloc0 (row_len);
  self->cur = g_malloc (row_len);
  self->sub = g_malloc (row_len);
  self->up = g_malloc (row_len);

  put_be32 (ihdr, width);
  put_be32 (ihdr + 4, height);
  ihdr[8] = 8;      /* bits per channel */
  ihdr[9] = 2;      /* RGB */
  ihdr[10] = ihdr[11] = ihdr[12] = 0;
  /* Pixels per metre, so programs that read it place the image at its size in points. */
  put_be32 (phys, ppm);
  put_be32 (phys + 4, ppm);
  phys[8] = 1;
  if (!write (closure, signature, sizeof signature) ||
      !emit_chunk (self, "IHDR", ihdr, sizeof ihdr) ||
      !emit_chunk (self, "pHYs", phys, sizeof phys))
    {
      write_failed (error);
      return NULL;
    }

  return g_steal_pointer (&self);
}

gboolean
pl_png_writer_add_rows (PlPngWriter      *self,
                        cairo_surface_t  *image,
                        int               n_rows,
                        GError          **error)
{
  int stride = cairo_image_surface_get_stride (image);
  const guint8 *data;
  gsize row_len = (gsize) self->width * 3;

  g_return_val_if_fail (cairo_image_surface_get_width (image) == self->width, FALSE);
  g_return_val_if_fail (n_rows <= cairo_image_surface_get_height (image), FALSE);
  g_return_val_if_fail (self->rows_done + n_rows <= self->height, FALSE);

  cairo_surface_flush (image);
  data = cairo_image_surface_get_data (image);
  if (self->band_rows < (gsize) n_rows)
    {
      g_free (self->band);
      self->band = g_malloc ((row_len + 1) * n_rows);
      self->band_rows = n_rows;
    }
  for (int k = 0; k < n_rows; k++)
    filter_row ((const guint32 *) (gconstpointer) (data + (gsize) k * stride), self->width,
                self->rows_done + k == 0, self->prev, self->cur, self->sub, self->up,
                self->band + (row_len + 1) * k);
  self->rows_done += n_rows;

  return compress (self, self->band, (row_len + 1) * n_rows, FALSE, error);
}

gboolean
pl_png_writer_finish (PlPngWriter  *self,
                      GError      **error)
{
  g_return_val_if_fail (self->rows_done == self->height, FALSE);

  if (!compress (self, NULL, 0, TRUE, error))
    return FALSE;
  if (!emit_chunk (self, "IEND", NULL, 0))
    return write_failed (error);
  return TRUE;
}
