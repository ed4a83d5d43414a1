/* SPDX-License-Identifier: MIT */
/* A fake root for the fuzz targets that read files: node0 with 2 MiB pages, removed at exit. */
#pragma once

#include <stddef.h>

/* The root's fd, the tree made on first use. */
int fuzz_tree(void);
const char *fuzz_tree_path(void);
/* Writes @size bytes of @data to @path below the root (aborts on failure). */
void fuzz_put(const char *path, const void *data, size_t size);
