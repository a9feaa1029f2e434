/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "pl-error.h"
#include "pl-pickle-private.h"

/* Real state dicts nest a handful of levels (a training checkpoint's dict,
 * the state dict, a tensor's call, its arguments, its storage's id). */
#define MAX_DEPTH       200
/* What a pickle may build: half its bytes and this. A state dict's pickle
 * builds about six times its size (130 bytes a tensor become some 14
 * values of 32 bytes and their places in containers), so files of up to
 * some 50,000 tensors fit; a reader's peak stays within twice the pickle's
 * size plus 64 MiB whatever the pickle holds. */
#define BASE_BUDGET     ((gsize) 40 << 20)
/* "module\nname\n" of a GLOBAL: Python identifiers, dotted. */
#define MAX_GLOBAL_NAME 256
#define BLOCK_VALUES    1024


/* Shared leaves: a pickle full of None costs nothing per None. */
static PlPickleValue none_value = { .kind = PL_PICKLE_NONE };
static PlPickleValue true_value = { .kind = PL_PICKLE_BOOL, .boolean = TRUE };
static PlPickleValue false_value = { .kind = PL_PICKLE_BOOL, .boolean = FALSE };

void
pl_pickle_free (PlPickle *self)
{
  if (self == NULL)
    return;
  for (guint b = 0; b < self->blocks->len; b++)
    {
      PlPickleValue *block = g_ptr_array_index (self->blocks, b);
      guint n = MIN (BLOCK_VALUES, self->n_values - b * BLOCK_VALUES);

      for (guint i = 0; i < n; i++)
        if (block[i].kind >= PL_PICKLE_TUPLE && block[i].kind <= PL_PICKLE_DICT)
          g_free (block[i].items.data);
      g_free (block);
    }
  g_ptr_array_unref (self->blocks);
  g_free (self->stack.data);
  g_array_unref (self->marks);
  g_free (self->memo.data);
  g_free (self->pids.data);
  g_ptr_array_unref (self->texts);
  g_bytes_unref (self->bytes);
  g_free (self);
}

gboolean
pl_pickle_fail (PlPickle    *self,
      GError     **error,
      const char  *format,
      ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT, "%s: %s (pickle byte %" G_GSIZE_FORMAT ")",
               self->what, message, self->pos - self->start);
  return FALSE;
}

gboolean
pl_pickle_charge (PlPickle    *self,
                  gsize        bytes,
                  const char  *what,
                  GError     **error)
{
  if (bytes > self->limit - self->cost)
    {
      g_autofree char *limit = g_format_size_full (self->limit, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *size = g_format_size_full (self->len - self->start, G_FORMAT_SIZE_IEC_UNITS);

      g_set_error (error, PL_ERROR, PL_ERROR_TOO_LARGE,
                   "%s: its pickle of %s would take more than %s of memory to read, more than a pickle of that "
                   "size may (a state dict’s takes about six times its size)",
                   what != NULL ? what : self->what, size, limit);
      return FALSE;
    }
  self->cost += bytes;
  return TRUE;
}

static void
release (PlPickle *self,
         gsize     bytes)
{
  self->cost -= MIN (bytes, self->cost);
}

/* Room in VEC for NEED items: EXACT for a tuple, else with a half to
 * spare. The new array is charged while the old one still is, as both live
 * while it is copied. */
static gboolean
reserve (PlPickle       *self,
         PlPickleItems  *vec,
         guint64         need,
         gboolean        exact,
         GError        **error)
{
  guint64 capacity;

  if (need <= vec->capacity)
    return TRUE;
  capacity = exact ? need : MAX (need, MAX ((guint64) vec->capacity + vec->capacity / 2, 8));
  if (capacity > G_MAXUINT / 2 ||
      !pl_pickle_charge (self, capacity * sizeof (PlPickleValue *), NULL, error))
    {
      if (capacity > G_MAXUINT / 2)
        pl_pickle_charge (self, G_MAXSIZE, NULL, error);
      return FALSE;
    }
  vec->data = g_renew (PlPickleValue *, vec->data, capacity);
  release (self, (gsize) vec->capacity * sizeof (PlPickleValue *));
  vec->capacity = (guint) capacity;
  return TRUE;
}

static gboolean
append (PlPickle       *self,
        PlPickleItems  *vec,
        PlPickleValue  *value,
        GError        **error)
{
  if (!reserve (self, vec, (guint64) vec->len + 1, FALSE, error))
    return FALSE;
  vec->data[vec->len++] = value;
  return TRUE;
}

PlPickleValue *
pl_pickle_new_value (PlPickle      *self,
                     PlPickleKind   kind,
                     GError       **error)
{
  PlPickleValue *block;
  PlPickleValue *value;

  if (self->n_values % BLOCK_VALUES == 0)
    {
      if (!pl_pickle_charge (self, BLOCK_VALUES * sizeof (PlPickleValue), NULL, error))
        return NULL;
      g_ptr_array_add (self->blocks, g_new0 (PlPickleValue, BLOCK_VALUES));
    }
  block = g_ptr_array_index (self->blocks, self->n_values / BLOCK_VALUES);
  value = &block[self->n_values % BLOCK_VALUES];
  self->n_values++;
  value->kind = kind;
  return value;
}

gboolean
pl_pickle_ran_out (PlPickle  *self,
         GError   **error)
{
  self->truncated = TRUE;
  g_set_error (error, PL_ERROR, PL_ERROR_CORRUPT,
               "%s: the data ends inside the pickle (truncated?)", self->what);
  return FALSE;
}

PlPickleValue *
pl_pickle_bool (gboolean value)
{
  return value ? &true_value : &false_value;
}

gpointer
pl_pickle_alloc_text (PlPickle  *self,
                      gsize      size,
                      GError   **error)
{
  gpointer text;

  if (!pl_pickle_charge (self, MAX (size, 1), NULL, error))
    return NULL;
  text = g_malloc (MAX (size, 1));
  g_ptr_array_add (self->texts, text);
  return text;
}

static gboolean
take (PlPickle      *self,
      gsize          n,
      const guint8 **out,
      GError       **error)
{
  if (n > self->len - self->pos)
    return pl_pickle_ran_out (self, error);
  *out = self->data + self->pos;
  self->pos += n;
  return TRUE;
}

static gboolean
take_uint (PlPickle  *self,
           guint      width,
           guint64   *out,
           GError   **error)
{
  const guint8 *p = NULL;
  guint64 v = 0;

  if (!take (self, width, &p, error))
    return FALSE;
  for (guint i = 0; i < width; i++)
    v |= (guint64) p[i] << (8 * i);
  *out = v;
  return TRUE;
}

/* The stack height at the last MARK: values below it are out of reach. */
static guint
stack_floor (PlPickle *self)
{
  return self->marks->len ? g_array_index (self->marks, guint, self->marks->len - 1) : 0;
}

gboolean
pl_pickle_push (PlPickle       *self,
      PlPickleValue  *value,
      GError        **error)
{
  if (value == NULL || !append (self, &self->stack, value, error))
    return FALSE;
  self->pushes++;
  return TRUE;
}

static PlPickleValue *
pop (PlPickle  *self,
     GError   **error)
{
  guint floor = stack_floor (self);

  if (self->stack.len <= floor)
    {
      pl_pickle_fail (self, error, "an instruction takes a value from an empty stack");
      return NULL;
    }
  return self->stack.data[--self->stack.len];
}

static PlPickleValue *
top (PlPickle  *self,
     GError   **error)
{
  guint floor = stack_floor (self);

  if (self->stack.len <= floor)
    {
      pl_pickle_fail (self, error, "an instruction needs a value on an empty stack");
      return NULL;
    }
  return self->stack.data[self->stack.len - 1];
}

/* The stack's values from INDEX on; NULL while nothing was ever pushed
 * (an offset into no array, even of 0, is undefined). */
static PlPickleValue **
stack_from (PlPickle *self,
            guint     index)
{
  return self->stack.data != NULL ? self->stack.data + index : NULL;
}

/* Appends the N values from FIRST on to a container, keeping its depth and
 * refusing nesting past MAX_DEPTH. A tuple is built once, to its size. */
static gboolean
add_items (PlPickle        *self,
           PlPickleValue   *container,
           PlPickleValue  **first,
           guint            n,
           GError         **error)
{
  if (!reserve (self, &container->items, (guint64) container->items.len + n, container->kind == PL_PICKLE_TUPLE,
                error))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      if (first[i]->depth + 1 > MAX_DEPTH)
        return pl_pickle_fail (self, error, "values nest deeper than %d levels", MAX_DEPTH);
      container->depth = MAX (container->depth, first[i]->depth + 1);
      container->items.data[container->items.len++] = first[i];
    }
  return TRUE;
}

/* Pops the values above the last MARK into a new container of KIND. */
static PlPickleValue *
pop_mark (PlPickle      *self,
          PlPickleKind   kind,
          GError       **error)
{
  PlPickleValue *container;
  guint mark;

  if (self->marks->len == 0)
    {
      pl_pickle_fail (self, error, "an instruction needs a MARK that was never set");
      return NULL;
    }
  mark = g_array_index (self->marks, guint, self->marks->len - 1);
  g_array_set_size (self->marks, self->marks->len - 1);
  container = pl_pickle_new_value (self, kind, error);
  if (container == NULL || !add_items (self, container, stack_from (self, mark), self->stack.len - mark, error))
    return NULL;
  self->stack.len = mark;
  return container;
}

static PlPickleValue *
new_tuple (PlPickle  *self,
           guint      n,
           GError   **error)
{
  PlPickleValue *tuple = pl_pickle_new_value (self, PL_PICKLE_TUPLE, error);
  guint floor = stack_floor (self);

  if (tuple == NULL)
    return NULL;
  if (self->stack.len < floor + n)
    {
      pl_pickle_fail (self, error, "a tuple takes more values than the stack holds");
      return NULL;
    }
  if (!add_items (self, tuple, stack_from (self, self->stack.len - n), n, error))
    return NULL;
  self->stack.len -= n;
  return tuple;
}

static PlPickleValue *
new_int (PlPickle  *self,
         gint64     v,
         GError   **error)
{
  PlPickleValue *value = pl_pickle_new_value (self, PL_PICKLE_INT, error);

  if (value != NULL)
    value->integer = v;
  return value;
}

static PlPickleValue *
new_bytes (PlPickle      *self,
           PlPickleKind   kind,
           guint64        len,
           GError       **error)
{
  PlPickleValue *value;
  const guint8 *p = NULL;

  if (!take (self, len, &p, error))
    return NULL;
  value = pl_pickle_new_value (self, kind, error);
  if (value != NULL)
    {
      value->bytes.data = (const char *) p;
      value->bytes.len = len;
    }
  return value;
}

/* LONG1: a little-endian two's complement integer of N bytes. */
static PlPickleValue *
new_long (PlPickle  *self,
          guint      n,
          GError   **error)
{
  const guint8 *p = NULL;
  guint64 v = 0;

  if (n > 8)
    return new_bytes (self, PL_PICKLE_BIG_INT, n, error);
  if (!take (self, n, &p, error))
    return NULL;
  for (guint i = 0; i < n; i++)
    v |= (guint64) p[i] << (8 * i);
  if (n > 0 && n < 8 && (p[n - 1] & 0x80))
    v |= G_MAXUINT64 << (8 * n);
  return new_int (self, (gint64) v, error);
}

static gboolean
is_printable (const char *s,
              gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if (s[i] < 0x21 || s[i] > 0x7e)
      return FALSE;
  return len > 0;
}

/* GLOBAL and STACK_GLOBAL: the allowed list decides, before anything else. */
static PlPickleValue *
new_global (PlPickle    *self,
            const char  *module,
            gsize        module_len,
            const char  *name,
            gsize        name_len,
            GError     **error)
{
  g_autofree char *full = NULL;
  const PlPickleGlobal *global;
  PlPickleValue *value;

  if (module_len > MAX_GLOBAL_NAME || name_len > MAX_GLOBAL_NAME ||
      !is_printable (module, module_len) || !is_printable (name, name_len))
    {
      pl_pickle_fail (self, error, "a global’s name is not a Python name");
      return NULL;
    }
  global = pl_pickle_find_global (module, module_len, name, name_len, &full);
  if (global == NULL)
    {
      g_set_error (error, PL_ERROR, PL_ERROR_UNSUPPORTED,
                   "%s: the pickle asks for the global %s, which is not part of a state dict of "
                   "tensors; Poslens reads weights only and runs nothing from a file", self->what, full);
      return NULL;
    }
  value = pl_pickle_new_value (self, PL_PICKLE_GLOBAL, error);
  if (value != NULL)
    value->global = global;
  return value;
}

static gboolean
read_line (PlPickle     *self,
           const char  **line,
           gsize        *len,
           GError      **error)
{
  const guint8 *start = self->data + self->pos;
  gsize avail = self->len - self->pos;
  const guint8 *nl = memchr (start, '\n', MIN (avail, MAX_GLOBAL_NAME + 1));

  if (nl == NULL && avail <= MAX_GLOBAL_NAME)
    return pl_pickle_ran_out (self, error);
  if (nl == NULL)
    return pl_pickle_fail (self, error, "a global’s name is longer than %d bytes", MAX_GLOBAL_NAME);
  *line = (const char *) start;
  *len = nl - start;
  self->pos += *len + 1;
  return TRUE;
}

/* REDUCE and NEWOBJ: FUNC (a global) applied to ARGS (a tuple). Nothing is
 * run: a dict's constructor gives an empty dict, torch.Size its tuple, and
 * everything else a CALL value the checkpoint reader interprets. */
static PlPickleValue *
apply (PlPickle       *self,
       PlPickleValue  *func,
       PlPickleValue  *args,
       GError        **error)
{
  PlPickleValue *call;

  if (func->kind != PL_PICKLE_GLOBAL)
    {
      pl_pickle_fail (self, error, "the pickle calls something that is not an allowed global");
      return NULL;
    }
  if (args->kind != PL_PICKLE_TUPLE)
    {
      pl_pickle_fail (self, error, "the arguments of %s are not a tuple", func->global->name);
      return NULL;
    }
  if (func->global->kind == PL_PICKLE_GLOBAL_DICT && args->items.len == 0)
    return pl_pickle_new_value (self, PL_PICKLE_DICT, error);
  if (func->global->kind == PL_PICKLE_GLOBAL_SIZE && args->items.len == 1 &&
      args->items.data[0]->kind == PL_PICKLE_TUPLE)
    return args->items.data[0];
  if (func->global->kind == PL_PICKLE_GLOBAL_STORAGE || func->global->kind == PL_PICKLE_GLOBAL_DTYPE)
    {
      pl_pickle_fail (self, error, "the pickle calls %s, which no state dict does", func->global->name);
      return NULL;
    }
  call = pl_pickle_new_value (self, PL_PICKLE_CALL, error);
  if (call == NULL)
    return NULL;
  call->call.func = func->global;
  call->call.args = args;
  call->depth = args->depth + 1;
  if (call->depth > MAX_DEPTH)
    {
      pl_pickle_fail (self, error, "values nest deeper than %d levels", MAX_DEPTH);
      return NULL;
    }
  return call;
}

gboolean
pl_pickle_memo_put (PlPickle  *self,
          guint64    index,
          GError   **error)
{
  PlPickleValue *value = top (self, error);

  if (value == NULL)
    return FALSE;
  /* Picklers number memo entries from 0 up, one per value they put: an
   * index past the values pushed so far is forged. */
  if (index >= self->pushes)
    return pl_pickle_fail (self, error, "memo index %" G_GUINT64_FORMAT " is beyond the %" G_GUINT64_FORMAT
                           " values built so far", index, self->pushes);
  if (index >= self->memo.len)
    {
      if (!reserve (self, &self->memo, index + 1, FALSE, error))
        return FALSE;
      memset (self->memo.data + self->memo.len, 0, (index + 1 - self->memo.len) * sizeof (PlPickleValue *));
      self->memo.len = index + 1;
    }
  self->memo.data[index] = value;
  return TRUE;
}

gboolean
pl_pickle_memo_get (PlPickle  *self,
          guint64    index,
          GError   **error)
{
  if (index >= self->memo.len || self->memo.data[index] == NULL)
    return pl_pickle_fail (self, error, "memo entry %" G_GUINT64_FORMAT " is read before it is set", index);
  return pl_pickle_push (self, self->memo.data[index], error);
}

/* SETITEM(S) and APPEND(S): the N values at the top of the stack go into
 * the container below them. */
static gboolean
add_from_stack (PlPickle      *self,
                guint          n,
                PlPickleKind   kind,
                GError       **error)
{
  guint floor = stack_floor (self);
  PlPickleValue *container;

  if (self->stack.len < floor + n + 1)
    return pl_pickle_fail (self, error, "an instruction takes more values than the stack holds");
  container = self->stack.data[self->stack.len - n - 1];
  if (container->kind != kind)
    return pl_pickle_fail (self, error, "the pickle adds items to something that is not a %s",
                 kind == PL_PICKLE_DICT ? "dict" : kind == PL_PICKLE_LIST ? "list" : "set");
  if (kind == PL_PICKLE_DICT && n % 2 != 0)
    return pl_pickle_fail (self, error, "a dict’s items are not key and value pairs");
  if (!add_items (self, container, stack_from (self, self->stack.len - n), n, error))
    return FALSE;
  self->stack.len -= n;
  return TRUE;
}

/* APPENDS, SETITEMS, ADDITEMS: the values above the last MARK, into the
 * container just below it. */
static gboolean
add_from_mark (PlPickle      *self,
               PlPickleKind   kind,
               GError       **error)
{
  guint mark;

  if (self->marks->len == 0)
    return pl_pickle_fail (self, error, "an instruction needs a MARK that was never set");
  mark = g_array_index (self->marks, guint, self->marks->len - 1);
  g_array_set_size (self->marks, self->marks->len - 1);
  return add_from_stack (self, self->stack.len - mark, kind, error);
}

/* BUILD sets an object's state: PyTorch allows it on tensors, parameters
 * and OrderedDicts (a state dict's _metadata). Kept on calls, ignored on
 * dicts. */
static gboolean
build (PlPickle  *self,
       GError   **error)
{
  PlPickleValue *state = pop (self, error);
  PlPickleValue *target;

  if (state == NULL || (target = top (self, error)) == NULL)
    return FALSE;
  if (target->kind == PL_PICKLE_CALL)
    target->call.state = state;
  else if (target->kind != PL_PICKLE_DICT)
    return pl_pickle_fail (self, error, "the pickle sets the state of something that is not a tensor or a dict");
  return TRUE;
}

static gboolean
persistent_id (PlPickle  *self,
               GError   **error)
{
  PlPickleValue *pid = pop (self, error);
  PlPickleValue *value;

  if (pid == NULL)
    return FALSE;
  if (pid->kind != PL_PICKLE_TUPLE || pid->items.len == 0 || !pl_pickle_value_equals (pid->items.data[0], "storage"))
    return pl_pickle_fail (self, error, "a persistent id is not a storage’s");
  value = pl_pickle_new_value (self, PL_PICKLE_PERSISTENT_ID, error);
  if (value == NULL)
    return FALSE;
  value->pid = pid;
  value->depth = pid->depth + 1;
  return append (self, &self->pids, value, error) && pl_pickle_push (self, value, error);
}

static gboolean
step (PlPickle  *self,
      gboolean  *done,
      GError   **error)
{
  const guint8 *op = NULL;
  const guint8 *p = NULL;
  guint64 n;
  PlPickleValue *a, *b;

  if (!take (self, 1, &op, error))
    return FALSE;
  switch (*op)
    {
    case 0x80: /* PROTO */
      if (!take (self, 1, &p, error))
        return FALSE;
      if (*p > 5)
        return pl_pickle_fail (self, error, "pickle protocol %u is newer than Python’s", *p);
      return TRUE;
    case 0x95: /* FRAME: a length hint */
      return take_uint (self, 8, &n, error);
    case '.': /* STOP */
      if ((self->root = pop (self, error)) == NULL)
        return FALSE;
      *done = TRUE;
      return TRUE;
    case '(': /* MARK */
      if (self->marks->len >= MAX_DEPTH)
        return pl_pickle_fail (self, error, "marks nest deeper than %d levels", MAX_DEPTH);
      g_array_append_val (self->marks, self->stack.len);
      return TRUE;
    case 'N':
      return pl_pickle_push (self, &none_value, error);
    case 0x88:
      return pl_pickle_push (self, &true_value, error);
    case 0x89:
      return pl_pickle_push (self, &false_value, error);
    case ')':
      return pl_pickle_push (self, pl_pickle_new_value (self, PL_PICKLE_TUPLE, error), error);
    case ']':
      return pl_pickle_push (self, pl_pickle_new_value (self, PL_PICKLE_LIST, error), error);
    case '}':
      return pl_pickle_push (self, pl_pickle_new_value (self, PL_PICKLE_DICT, error), error);
    case 0x8f: /* EMPTY_SET */
      return pl_pickle_push (self, pl_pickle_new_value (self, PL_PICKLE_SET, error), error);
    case 't':
      return pl_pickle_push (self, pop_mark (self, PL_PICKLE_TUPLE, error), error);
    case 'l': /* LIST */
      return pl_pickle_push (self, pop_mark (self, PL_PICKLE_LIST, error), error);
    case 'd': /* DICT */
      if ((a = pop_mark (self, PL_PICKLE_DICT, error)) == NULL)
        return FALSE;
      if (pl_pickle_value_get_length (a) % 2 != 0)
        return pl_pickle_fail (self, error, "a dict’s items are not key and value pairs");
      return pl_pickle_push (self, a, error);
    case '0': /* POP: the top value, or the last MARK when there is none above it */
      if (self->stack.len > stack_floor (self))
        self->stack.len--;
      else if (self->marks->len > 0)
        g_array_set_size (self->marks, self->marks->len - 1);
      else
        return pl_pickle_fail (self, error, "an instruction takes a value from an empty stack");
      return TRUE;
    case '1': /* POP_MARK */
      if (self->marks->len == 0)
        return pl_pickle_fail (self, error, "an instruction needs a MARK that was never set");
      self->stack.len = g_array_index (self->marks, guint, self->marks->len - 1);
      g_array_set_size (self->marks, self->marks->len - 1);
      return TRUE;
    case '2': /* DUP */
      return (a = top (self, error)) != NULL && pl_pickle_push (self, a, error);
    case 0x85:
    case 0x86:
    case 0x87:
      return pl_pickle_push (self, new_tuple (self, *op - 0x84, error), error);
    case 'J': /* BININT */
      return take_uint (self, 4, &n, error) && pl_pickle_push (self, new_int (self, (gint32) (guint32) n, error), error);
    case 'K': /* BININT1 */
      return take_uint (self, 1, &n, error) && pl_pickle_push (self, new_int (self, (gint64) n, error), error);
    case 'M': /* BININT2 */
      return take_uint (self, 2, &n, error) && pl_pickle_push (self, new_int (self, (gint64) n, error), error);
    case 0x8a: /* LONG1 */
      return take_uint (self, 1, &n, error) && pl_pickle_push (self, new_long (self, n, error), error);
    case 'G': /* BINFLOAT, big-endian */
      if (!take_uint (self, 8, &n, error) || (a = pl_pickle_new_value (self, PL_PICKLE_FLOAT, error)) == NULL)
        return FALSE;
      n = GUINT64_SWAP_LE_BE (n);
      memcpy (&a->real, &n, sizeof a->real);
      return pl_pickle_push (self, a, error);
    case 'X': /* BINUNICODE */
      return take_uint (self, 4, &n, error) && pl_pickle_push (self, new_bytes (self, PL_PICKLE_STRING, n, error), error);
    case 0x8c: /* SHORT_BINUNICODE */
      return take_uint (self, 1, &n, error) && pl_pickle_push (self, new_bytes (self, PL_PICKLE_STRING, n, error), error);
    case 0x8d: /* BINUNICODE8 */
      return take_uint (self, 8, &n, error) && pl_pickle_push (self, new_bytes (self, PL_PICKLE_STRING, n, error), error);
    case 'U': /* SHORT_BINSTRING */
    case 'C': /* SHORT_BINBYTES */
      return take_uint (self, 1, &n, error) && pl_pickle_push (self, new_bytes (self, PL_PICKLE_BYTES, n, error), error);
    case 'T': /* BINSTRING */
    case 'B': /* BINBYTES */
      return take_uint (self, 4, &n, error) && pl_pickle_push (self, new_bytes (self, PL_PICKLE_BYTES, n, error), error);
    case 0x8e: /* BINBYTES8 */
      return take_uint (self, 8, &n, error) && pl_pickle_push (self, new_bytes (self, PL_PICKLE_BYTES, n, error), error);
    case 'q': /* BINPUT */
      return take_uint (self, 1, &n, error) && pl_pickle_memo_put (self, n, error);
    case 'r': /* LONG_BINPUT */
      return take_uint (self, 4, &n, error) && pl_pickle_memo_put (self, n, error);
    case 0x94: /* MEMOIZE */
      return pl_pickle_memo_put (self, self->memo.len, error);
    case 'h': /* BINGET */
      return take_uint (self, 1, &n, error) && pl_pickle_memo_get (self, n, error);
    case 'j': /* LONG_BINGET */
      return take_uint (self, 4, &n, error) && pl_pickle_memo_get (self, n, error);
    case 'c': /* GLOBAL */
      {
        const char *module, *name;
        gsize module_len, name_len;

        return read_line (self, &module, &module_len, error) && read_line (self, &name, &name_len, error) &&
               pl_pickle_push (self, new_global (self, module, module_len, name, name_len, error), error);
      }
    case 0x93: /* STACK_GLOBAL */
      if ((b = pop (self, error)) == NULL || (a = pop (self, error)) == NULL)
        return FALSE;
      if (a->kind != PL_PICKLE_STRING || b->kind != PL_PICKLE_STRING)
        return pl_pickle_fail (self, error, "a global’s module and name are not strings");
      return pl_pickle_push (self, new_global (self, a->bytes.data, a->bytes.len, b->bytes.data, b->bytes.len, error), error);
    case 'R': /* REDUCE */
    case 0x81: /* NEWOBJ */
      if ((b = pop (self, error)) == NULL || (a = pop (self, error)) == NULL)
        return FALSE;
      return pl_pickle_push (self, apply (self, a, b, error), error);
    case 'b':
      return build (self, error);
    case 'Q':
      return persistent_id (self, error);
    case 'a': /* APPEND */
      return add_from_stack (self, 1, PL_PICKLE_LIST, error);
    case 'e': /* APPENDS */
      return add_from_mark (self, PL_PICKLE_LIST, error);
    case 0x90: /* ADDITEMS */
      return add_from_mark (self, PL_PICKLE_SET, error);
    case 's': /* SETITEM */
      return add_from_stack (self, 2, PL_PICKLE_DICT, error);
    case 'u': /* SETITEMS */
      return add_from_mark (self, PL_PICKLE_DICT, error);
    default:
      {
        gboolean handled;

        if (pl_pickle_step_text (self, *op, &handled, error))
          return TRUE;
        if (handled)
          return FALSE;
      }
      if (g_ascii_isprint (*op))
        return pl_pickle_fail (self, error, "pickle instruction “%c” is not one a state dict needs", *op);
      return pl_pickle_fail (self, error, "pickle instruction 0x%02x is not one a state dict needs", *op);
    }
}

PlPickle *
pl_pickle_load (GBytes      *data,
                gsize        offset,
                const char  *what,
                gboolean    *truncated,
                GError     **error)
{
  g_autoptr(PlPickle) self = g_new0 (PlPickle, 1);
  gboolean done = FALSE;

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self->bytes = g_bytes_ref (data);
  self->data = g_bytes_get_data (data, &self->len);
  self->pos = self->start = MIN (offset, self->len);
  self->what = what;
  self->blocks = g_ptr_array_new ();
  self->marks = g_array_new (FALSE, FALSE, sizeof (guint));
  self->limit = (self->len - self->start) / 2 + BASE_BUDGET;
  self->texts = g_ptr_array_new_with_free_func (g_free);
  if (truncated != NULL)
    *truncated = FALSE;

  while (!done)
    if (!step (self, &done, error))
      {
        if (truncated != NULL)
          *truncated = self->truncated;
        return NULL;
      }

  /* The messages named WHAT, which the caller owns. The stack and the memo
   * are done with. */
  self->what = NULL;
  g_clear_pointer (&self->stack.data, g_free);
  g_clear_pointer (&self->memo.data, g_free);
  release (self, (gsize) (self->stack.capacity + self->memo.capacity) * sizeof (PlPickleValue *));
  self->stack.len = self->stack.capacity = self->memo.len = self->memo.capacity = 0;
  return g_steal_pointer (&self);
}
