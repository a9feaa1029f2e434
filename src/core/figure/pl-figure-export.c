/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "pl-error.h"
#include "pl-figure-private.h"

/* Writing a figure to PNG, SVG or PDF. The file is written next to its
 * destination under a temporary name and renamed over it only when complete,
 * so a failed export leaves neither a broken file nor a destroyed old one. */

/* Cairo's own limit for image surfaces, and a memory cap of 1 GiB of pixels. */
#define MAX_SIDE_PX   32767
#define MAX_PIXELS    (1u << 28)

typedef enum
{
  FORMAT_PNG,
  FORMAT_SVG,
  FORMAT_PDF,
} Format;

typedef struct
{
  int fd;
  int saved_errno;
} Sink;

static cairo_status_t
sink_write (void                *closure,
            const unsigned char *data,
            unsigned int         length)
{
  Sink *sink = closure;

  while (length > 0)
    {
      ssize_t n = write (sink->fd, data, length);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          sink->saved_errno = errno;
          return CAIRO_STATUS_WRITE_ERROR;
        }
      data += n;
      length -= (unsigned int) n;
    }

  return CAIRO_STATUS_SUCCESS;
}

static gboolean
png_write (gpointer      closure,
           const guint8 *data,
           gsize         len)
{
  return sink_write (closure, data, (unsigned int) len) == CAIRO_STATUS_SUCCESS;
}

static cairo_status_t
string_write (void                *closure,
              const unsigned char *data,
              unsigned int         length)
{
  g_string_append_len (closure, (const char *) data, length);
  return CAIRO_STATUS_SUCCESS;
}

static gboolean
format_for_path (const char  *path,
                 Format      *format,
                 GError     **error)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  if (g_str_has_suffix (lower, ".png"))
    *format = FORMAT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    *format = FORMAT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    *format = FORMAT_PDF;
  else
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "Cannot export the figure to “%s”: the name must end in .png, .svg or .pdf", path);
      return FALSE;
    }

  return TRUE;
}

static gboolean
cairo_failed (cairo_status_t   status,
              const Sink      *sink,
              const char      *path,
              GError         **error)
{
  if (status == CAIRO_STATUS_SUCCESS)
    return FALSE;

  if (status == CAIRO_STATUS_WRITE_ERROR && sink->saved_errno != 0)
    g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "Could not write the figure to “%s”: %s",
                 path, g_strerror (sink->saved_errno));
  else if (status == CAIRO_STATUS_NO_MEMORY || status == CAIRO_STATUS_INVALID_SIZE)
    g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                 "Could not draw the figure for “%s”: it is too large (%s)", path, cairo_status_to_string (status));
  else
    g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "Could not draw the figure for “%s”: %s",
                 path, cairo_status_to_string (status));
  return TRUE;
}

static gboolean
png_failed (const Sink  *sink,
            const char  *path,
            GError      *local_error,
            GError     **error)
{
  if (sink->saved_errno != 0)
    return !cairo_failed (CAIRO_STATUS_WRITE_ERROR, sink, path, error);
  g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "Could not encode the figure for “%s”: %s",
               path, local_error ? local_error->message : "unknown error");
  return FALSE;
}

/* Drawn a band of rows at a time, each band a translated render of the whole
 * figure (cheap: the heatmap image is cached), and streamed out: memory stays
 * at one band, whatever the size of the PNG. */
static gboolean
write_png (PlFigure    *self,
           Sink        *sink,
           const char  *path,
           double       width_pt,
           double       height_pt,
           double       dpi,
           GError     **error)
{
  double w = round (width_pt * dpi / 72);
  double h = round (height_pt * dpi / 72);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(PlPngWriter) writer = NULL;
  cairo_surface_t *band;
  int band_rows;

  if (w < 1 || h < 1 || w > MAX_SIDE_PX || h > MAX_SIDE_PX || w * h > MAX_PIXELS)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "Cannot export “%s”: %.0f × %.0f pixels is outside 1 to %d pixels a side "
                   "(lower the size or the DPI)", path, w, h, MAX_SIDE_PX);
      return FALSE;
    }

  /* About 256 KiB of pixels a band. */
  band_rows = (int) CLAMP (65536 / w, 16, h);
  band = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) w, band_rows);
  if (cairo_failed (cairo_surface_status (band), sink, path, error))
    {
      cairo_surface_destroy (band);
      return FALSE;
    }
  writer = pl_png_writer_new ((int) w, (int) h, dpi, png_write, sink, &local_error);
  if (writer == NULL)
    {
      cairo_surface_destroy (band);
      return png_failed (sink, path, local_error, error);
    }

  for (int y0 = 0; y0 < (int) h; y0 += band_rows)
    {
      cairo_t *cr = cairo_create (band);
      cairo_status_t status;

      cairo_translate (cr, 0, -y0);
      /* Fill the pixel grid exactly, whatever the rounding of the size. */
      cairo_scale (cr, w / width_pt, h / height_pt);
      pl_figure_render_full (self, cr, width_pt, height_pt, NULL);
      status = cairo_status (cr);
      cairo_destroy (cr);
      if (cairo_failed (status, sink, path, error))
        {
          cairo_surface_destroy (band);
          return FALSE;
        }
      if (!pl_png_writer_add_rows (writer, band, MIN (band_rows, (int) h - y0), &local_error))
        {
          cairo_surface_destroy (band);
          return png_failed (sink, path, local_error, error);
        }
    }
  cairo_surface_destroy (band);

  if (!pl_png_writer_finish (writer, &local_error))
    return png_failed (sink, path, local_error, error);
  return TRUE;
}

static gboolean
write_pdf (PlFigure    *self,
           Sink        *sink,
           const char  *path,
           double       width_pt,
           double       height_pt,
           GError     **error)
{
  cairo_surface_t *surface = cairo_pdf_surface_create_for_stream (sink_write, sink, width_pt, height_pt);
  cairo_t *cr;
  cairo_status_t status;

  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "Poslens " PACKAGE_VERSION);
  if (self->title != NULL)
    cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, self->title);
  cr = cairo_create (surface);
  pl_figure_render_full (self, cr, width_pt, height_pt, NULL);
  status = cairo_status (cr);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);

  return !cairo_failed (status, sink, path, error);
}

static gboolean
write_svg (PlFigure    *self,
           Sink        *sink,
           const char  *path,
           double       width_pt,
           double       height_pt,
           GError     **error)
{
  g_autoptr(GString) svg = g_string_new (NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  cairo_surface_t *surface = cairo_svg_surface_create_for_stream (string_write, svg, width_pt, height_pt);
  cairo_t *cr;
  cairo_status_t status;
  const char *end;

  /* One user unit is one point, as in the renderer. */
  cairo_svg_surface_set_document_unit (surface, CAIRO_SVG_UNIT_PT);
  cr = cairo_create (surface);
  pl_figure_render_full (self, cr, width_pt, height_pt, text);
  status = cairo_status (cr);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (cairo_failed (status, sink, path, error))
    return FALSE;

  /* Text goes in as <text> elements, searchable and editable, on top of the
   * drawing (every figure draws its text last in each place anyway). */
  end = g_strrstr (svg->str, "</svg>");
  if (end == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "Could not draw the figure for “%s”: cairo wrote no SVG", path);
      return FALSE;
    }
  g_string_insert (svg, end - svg->str, text->str);
  /* Cairo says nothing about smoothing; ask viewers to keep heatmap cells
   * sharp (the attribute for SVG 1.1 viewers, the CSS for browsers). */
  g_string_replace (svg, "<image ",
                    "<image image-rendering=\"optimizeSpeed\" style=\"image-rendering:pixelated\" ", 0);

  return !cairo_failed (sink_write (sink, (const guchar *) svg->str, svg->len), sink, path, error);
}

gboolean
pl_figure_export (PlFigure    *self,
                  const char  *path,
                  double       width_pt,
                  double       height_pt,
                  double       dpi,
                  GError     **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *tmp = NULL;
  Sink sink = { -1, 0 };
  Format format;
  gboolean ok;
  gboolean existed;

  g_return_val_if_fail (PL_IS_FIGURE (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!format_for_path (path, &format, error))
    return FALSE;
  if (!pl_figure_check_size (self, error))
    {
      g_prefix_error (error, "Cannot export “%s”: ", path);
      return FALSE;
    }
  if (!(width_pt > 0) || !(height_pt > 0) || !isfinite (width_pt) || !isfinite (height_pt) ||
      (format == FORMAT_PNG && (!(dpi > 0) || !isfinite (dpi))))
    {
      g_set_error (error, PL_ERROR, PL_ERROR_INVALID_ARGUMENT,
                   "Cannot export “%s”: the size (%g × %g pt) and the DPI (%g) must be positive",
                   path, width_pt, height_pt, dpi);
      return FALSE;
    }

  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  tmp = g_strdup_printf ("%s%c.%s.XXXXXX", dir, G_DIR_SEPARATOR, base);
  sink.fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0666);
  if (sink.fd < 0)
    {
      int saved = errno;

      if (saved == ENOENT || saved == ENOTDIR)
        g_set_error (error, PL_ERROR, PL_ERROR_NOT_FOUND,
                     "Cannot write “%s”: the folder “%s” does not exist", path, dir);
      else
        g_set_error (error, PL_ERROR, PL_ERROR_FAILED,
                     "Cannot write “%s” in the folder “%s”: %s", path, dir, g_strerror (saved));
      return FALSE;
    }

  /* The screen's hit tests keep answering for what the screen shows. */
  pl_figure_save_render_state (self);
  switch (format)
    {
    case FORMAT_PNG:
      ok = write_png (self, &sink, path, width_pt, height_pt, dpi, error);
      break;
    case FORMAT_SVG:
      ok = write_svg (self, &sink, path, width_pt, height_pt, error);
      break;
    case FORMAT_PDF:
    default:
      ok = write_pdf (self, &sink, path, width_pt, height_pt, error);
      break;
    }
  pl_figure_restore_render_state (self);

  /* Replacing a file: make the new content durable before the rename makes it
   * the only copy, as g_file_replace does. */
  existed = g_file_test (path, G_FILE_TEST_EXISTS);
  if (ok && existed && fsync (sink.fd) != 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "Could not write the figure to “%s”: %s",
                   path, g_strerror (errno));
      ok = FALSE;
    }
  if (close (sink.fd) != 0 && ok)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "Could not write the figure to “%s”: %s",
                   path, g_strerror (errno));
      ok = FALSE;
    }
  if (ok && g_rename (tmp, path) != 0)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_FAILED, "Could not replace “%s”: %s",
                   path, g_strerror (errno));
      ok = FALSE;
    }
  if (!ok)
    g_unlink (tmp);

  return ok;
}
