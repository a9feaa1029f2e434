/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <png.h>
#include <setjmp.h>

#include <gio/gio.h>

#include "pl-error.h"
#include "pl-figure-private.h"

/* PNG export through libpng, tuned for figures: deflate at a fast level
 * (cairo's writer spends most of an export in zlib at its default level)
 * and each row given the cheapest of the none, sub and up filters (heatmap
 * cells repeat down whole rows, which "up" turns into runs of zeros). The
 * image is opaque RGB and carries its DPI in pHYs. Cairo's ARGB32 rows go
 * to libpng as they are: the filler byte is stripped and the channel order
 * set to match the machine's. */

#define DEFLATE_LEVEL 1

struct _PlPngWriter
{
  png_structp        png;
  png_infop          info;
  PlFigureWriteFunc  write;
  gpointer           closure;
  int                height;
  int                rows_done;
  gboolean           write_failed;
  char              *message;   /* libpng's own error, when it has one */
};

static void
on_write (png_structp  png,
          png_bytep    data,
          size_t       len)
{
  PlPngWriter *self = png_get_io_ptr (png);

  if (!self->write (self->closure, data, len))
    {
      self->write_failed = TRUE;
      png_error (png, "write failed");
    }
}

static void
on_flush (png_structp png)
{
}

static void
on_error (png_structp      png,
          png_const_charp  message)
{
  PlPngWriter *self = png_get_error_ptr (png);

  g_free (self->message);
  self->message = g_strdup (message);
  png_longjmp (png, 1);
}

static void
on_warning (png_structp      png,
            png_const_charp  message)
{
}

static gboolean
failed (PlPngWriter  *self,
        GError      **error)
{
  g_set_error_literal (error, PL_ERROR, PL_ERROR_FAILED,
                       self->write_failed || self->message == NULL ? "write failed" : self->message);
  return FALSE;
}

void
pl_png_writer_free (PlPngWriter *self)
{
  png_destroy_write_struct (&self->png, &self->info);
  g_free (self->message);
  g_free (self);
}

/* libpng returns here by longjmp on failure: no automatic cleanup in
 * functions that call setjmp. */
static gboolean
write_header (PlPngWriter *self,
              int          width,
              int          height,
              double       dpi)
{
  png_uint_32 ppm = (png_uint_32) round (dpi / 0.0254);

  if (setjmp (png_jmpbuf (self->png)))
    return FALSE;
  png_set_write_fn (self->png, self, on_write, on_flush);
  png_set_compression_level (self->png, DEFLATE_LEVEL);
  png_set_filter (self->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE | PNG_FILTER_SUB | PNG_FILTER_UP);
  png_set_IHDR (self->png, self->info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
  /* Pixels per metre, so programs that read it place the image at its size in points. */
  png_set_pHYs (self->png, self->info, ppm, ppm, PNG_RESOLUTION_METER);
  png_write_info (self->png, self->info);
  /* Cairo's opaque ARGB32 is a native-endian 32-bit word per pixel:
   * B, G, R, X in memory on little-endian machines, X, R, G, B on big. */
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  png_set_bgr (self->png);
  png_set_filler (self->png, 0, PNG_FILLER_AFTER);
#else
  png_set_filler (self->png, 0, PNG_FILLER_BEFORE);
#endif
  return TRUE;
}

PlPngWriter *
pl_png_writer_new (int                width,
                   int                height,
                   double             dpi,
                   PlFigureWriteFunc  write,
                   gpointer           closure,
                   GError           **error)
{
  PlPngWriter *self = g_new0 (PlPngWriter, 1);

  self->write = write;
  self->closure = closure;
  self->height = height;
  self->png = png_create_write_struct (PNG_LIBPNG_VER_STRING, self, on_error, on_warning);
  if (self->png == NULL || (self->info = png_create_info_struct (self->png)) == NULL)
    {
      g_set_error_literal (error, PL_ERROR, PL_ERROR_TOO_LARGE, "out of memory");
      pl_png_writer_free (self);
      return NULL;
    }
  if (!write_header (self, width, height, dpi))
    {
      failed (self, error);
      pl_png_writer_free (self);
      return NULL;
    }
  return self;
}

gboolean
pl_png_writer_add_rows (PlPngWriter      *self,
                        cairo_surface_t  *image,
                        int               n_rows,
                        GError          **error)
{
  int stride = cairo_image_surface_get_stride (image);
  guint8 *data;

  g_return_val_if_fail (n_rows <= cairo_image_surface_get_height (image), FALSE);
  g_return_val_if_fail (self->rows_done + n_rows <= self->height, FALSE);

  cairo_surface_flush (image);
  data = cairo_image_surface_get_data (image);
  if (setjmp (png_jmpbuf (self->png)))
    return failed (self, error);
  for (int k = 0; k < n_rows; k++)
    png_write_row (self->png, data + (gsize) k * stride);
  self->rows_done += n_rows;
  return TRUE;
}

gboolean
pl_png_writer_finish (PlPngWriter  *self,
                      GError      **error)
{
  g_return_val_if_fail (self->rows_done == self->height, FALSE);

  if (setjmp (png_jmpbuf (self->png)))
    return failed (self, error);
  png_write_end (self->png, self->info);
  return TRUE;
}
