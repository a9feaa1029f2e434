/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <hdf5.h>

/* Writes every bad input of test-bad-files.c into FOLDER (kept for the
 * process's life). */
void  bad_files_build_corpus (const char *folder);
/* A new HDF5 file NAME in that folder, for a test to fill. */
hid_t bad_files_create_h5    (const char *name);
