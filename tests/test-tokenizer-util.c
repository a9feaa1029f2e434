/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "pl-test-util.h"
#include "test-tokenizer-util.h"

JsonObject *
pl_test_tokenizer_reference (void)
{
  g_autofree char *path = pl_test_fixture ("tokenizers", "reference.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

char *
pl_test_hard_case_text (const HardCase *c)
{
  g_autofree char *bs = NULL;

  if (c->text != NULL)
    return g_strdup (c->text);
  bs = g_strnfill (99, 'b');
  return g_strconcat (bs, "é", NULL);
}

void
pl_test_assert_ids (GArray *ids, const int *expect, const char *text)
{
  guint n = 0;

  while (expect[n] >= 0)
    n++;
  if (ids->len != n || memcmp (ids->data, expect, n * sizeof (int)) != 0)
    {
      g_autoptr(GString) got = g_string_new (NULL);

      for (guint i = 0; i < ids->len; i++)
        g_string_append_printf (got, " %d", g_array_index (ids, int, i));
      g_error ("“%s”: got%s (%u ids, expected %u)", text, got->str, ids->len, n);
    }
}

void
pl_test_check_reference (PlTokenizer *tok, const char *which)
{
  g_autoptr(JsonObject) ref = pl_test_tokenizer_reference ();
  JsonArray *sentences = json_object_get_array_member (ref, "sentences");
  JsonArray *expected = json_object_get_array_member (ref, which);

  g_assert_cmpuint (json_array_get_length (sentences), ==, json_array_get_length (expected));
  g_assert_cmpuint (json_array_get_length (sentences), >=, 20);
  for (guint i = 0; i < json_array_get_length (sentences); i++)
    {
      const char *text = json_array_get_string_element (sentences, i);
      JsonObject *e = json_array_get_object_element (expected, i);
      JsonArray *e_ids = json_object_get_array_member (e, "ids");
      JsonArray *e_tokens = json_object_get_array_member (e, "tokens");
      g_autoptr(GArray) ids = NULL;
      g_autoptr(GPtrArray) tokens = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_true (pl_tokenizer_encode (tok, text, &ids, &tokens, &error));
      g_assert_no_error (error);
      if (ids->len != json_array_get_length (e_ids))
        g_error ("%s, sentence %u “%s”: %u ids, Hugging Face has %u",
                 which, i, text, ids->len, json_array_get_length (e_ids));
      g_assert_cmpuint (tokens->len, ==, ids->len);
      for (guint k = 0; k < ids->len; k++)
        {
          g_assert_cmpint (g_array_index (ids, int, k), ==, json_array_get_int_element (e_ids, k));
          g_assert_cmpstr (g_ptr_array_index (tokens, k), ==, json_array_get_string_element (e_tokens, k));
        }
    }
}
