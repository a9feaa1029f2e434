/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "pl-matrix.h"

G_BEGIN_DECLS

/* The rows of X [T, D] with D > T (a layer's positional component) as T
 * coordinates each, [T, T], in an orthonormal basis b_1 … b_T of a
 * T-dimensional subspace of R^D that holds every row: X = coordinates · B.
 * Every dot product, norm, distance and (centred) PCA of the rows is the
 * same on the coordinates, so an activations file keeps T² numbers a layer
 * instead of T·D (README, "Activations files").
 *
 * The basis is the rows' own: b_1 … b_{T−1} are the principal axes of the
 * centred rows, largest variance first, and b_T the rest of their span (the
 * direction of the mean outside those axes); each b_k is signed so that its
 * largest |entry| is positive, as pl_pca_compute signs its loadings, so
 * principal components computed on the coordinates come out with the signs
 * they have on X. Computed in double: X's transpose factored by Householder
 * QR (any orthonormal basis of the span, coordinates Rᵀ), then the SVD of
 * the centred T × T coordinates turns it onto the principal axes.
 *
 * BASIS, when not NULL, gets B [T, D], one basis vector a row (for tests).
 * A non-finite X, or LAPACK failing, is an error. */
PlMatrix *pl_position_coordinates (const PlMatrix  *x,
                                   PlMatrix       **basis,
                                   GError         **error);

G_END_DECLS
