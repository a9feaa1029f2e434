/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Pickles written instruction by instruction, and legacy torch.save files
 * around them, for PyTorch checkpoints Python would not write (forged,
 * huge or deeply nested) and for ones too large to commit. */

/* A pickle that starts with PROTO 2. */
GByteArray *pl_test_pickle_new      (void);
void        pl_test_pickle_op       (GByteArray    *pickle,
                                     guint8         op);
/* OP repeated COUNT times. */
void        pl_test_pickle_ops      (GByteArray    *pickle,
                                     guint8         op,
                                     gsize          count);
/* OP followed by its 4-byte little-endian argument. */
void        pl_test_pickle_op_u32   (GByteArray    *pickle,
                                     guint8         op,
                                     guint32        arg);
void        pl_test_pickle_string   (GByteArray    *pickle,
                                     const char    *text);
/* BININT for 32-bit values, LONG1 for the rest. */
void        pl_test_pickle_int      (GByteArray    *pickle,
                                     gint64         value);
void        pl_test_pickle_global   (GByteArray    *pickle,
                                     const char    *module,
                                     const char    *name);
/* A tuple of N integers. */
void        pl_test_pickle_dims     (GByteArray    *pickle,
                                     guint          n,
                                     const guint64 *dims);
/* torch._utils._rebuild_tensor_v2 on a float32 storage, with the legacy
 * format's persistent id ('storage', torch.FloatStorage, KEY, 'cpu',
 * NUMEL, None). */
void        pl_test_pickle_tensor   (GByteArray    *pickle,
                                     const char    *key,
                                     guint64        numel,
                                     guint64        offset,
                                     guint          rank,
                                     const guint64 *size,
                                     const guint64 *stride);

/* The same on a storage of TYPE ("FloatStorage", "HalfStorage", …) whose
 * persistent id is the zip format's ('storage', torch.TYPE, KEY, 'cpu',
 * NUMEL) when LEGACY is FALSE. */
void        pl_test_pickle_tensor_of (GByteArray    *pickle,
                                      const char    *type,
                                      const char    *key,
                                      guint64        numel,
                                      guint64        offset,
                                      guint          rank,
                                      const guint64 *size,
                                      const guint64 *stride,
                                      gboolean       legacy);

/* A zip file as torch.save writes it: ARCHIVE/data.pkl (PICKLE, a whole
 * pickle), ARCHIVE/data/KEYS[i] holding DATA[i], ARCHIVE/version, every
 * entry stored. */
void        pl_test_write_torch_zip (const char          *path,
                                     const char          *archive,
                                     GByteArray          *pickle,
                                     guint                n_storages,
                                     const char * const  *keys,
                                     GBytes * const      *data);

/* A legacy torch.save file: magic number, protocol version and system
 * information, OBJECT (a whole pickle, STOP included), the list of KEYS,
 * then each storage: NUMELS[i] (8 bytes) and the float32 DATA[i]. A NULL
 * DATA[i] leaves that storage a hole: the file declares it, sparse, and
 * stores none of its bytes. */
void        pl_test_write_torch_legacy (const char          *path,
                                        GByteArray          *object,
                                        guint                n_storages,
                                        const char * const  *keys,
                                        const guint64       *numels,
                                        const float * const *data);

G_END_DECLS
