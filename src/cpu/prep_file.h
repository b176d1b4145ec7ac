/* prep_file.h - the data set as a file in the cache folder.
 *
 * The table of prep_data.h is generated once for each (rows, seed) and kept
 * in <cache>/pipeline/trips-<rows>-<seed>.bin (core/paths.h: $CUDALAB_CACHE,
 * else $XDG_CACHE_HOME/cudalab, else ~/.cache/cudalab), so that loading it
 * is what a program with data on disk does: read the file.  The file is a
 * PREP_FILE_HEADER-byte header, then the columns exactly as they lie in
 * memory (prep_cols_in), so one read of the body fills a table and one copy
 * puts it on the device.  The header holds the magic "CLPREP01", the format
 * version, the rows, the seed, the body's size and a checksum of the body
 * (prep_checksum), and a directory of the columns (name, type, offset,
 * bytes) for other readers.
 *
 * A file that is missing, of another size, with another header, or whose
 * body does not match its checksum is generated again, with a message
 * saying why.  Files are written under a temporary name and renamed, and
 * the checksum catches anything a crash could leave, so no fsync is
 * needed.  Writing one removes the files of the same rows made for other
 * seeds (the default seed's stays), so fresh seeds do not pile up. */
#ifndef CUDALAB_CPU_PREP_FILE_H
#define CUDALAB_CPU_PREP_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define PREP_FILE_MAGIC "CLPREP01"
#define PREP_FILE_VERSION 1u
#define PREP_FILE_HEADER 4096

/* Bytes of the whole file for a table of rows. */
size_t prep_file_bytes(int64_t rows);
/* <cache>/pipeline/trips-<rows>-<seed>.bin */
bool prep_file_path(int64_t rows, uint64_t seed, char *out, size_t len, cl_err *err);

/* A checksum of bytes (a multiple of 8) of body: 1 MiB chunks hashed on
 * threads threads (<= 0: all), combined in order; the same for every
 * thread count. */
uint64_t prep_checksum(const void *body, size_t bytes, int threads);

/* Writes the table block (prep_table_bytes(rows) bytes) for (rows, seed) to
 * path: a temporary file beside it, then a rename.  Checks the free space
 * first ("needs 768.0 MiB in <folder>, 120.0 MiB free"). */
bool prep_file_write(const char *path, const void *block, int64_t rows, uint64_t seed, cl_err *err);
/* Whether path holds the table for (rows, seed): its size, header and
 * checksum, reading the body into block (prep_table_bytes(rows) bytes; NULL:
 * memory of its own).  false + err saying what is wrong ("missing", "its
 * header describes another table", "damaged: its checksum does not match",
 * ...). */
bool prep_file_check(const char *path, int64_t rows, uint64_t seed, void *block, int threads,
                     cl_err *err);
/* Reads the body of path into block, threads threads reading slices of it
 * at once (pread); the header is not read. */
bool prep_file_read(const char *path, void *block, int64_t rows, int threads, cl_err *err);

/* Makes sure path (prep_file_path) holds a good file for (rows, seed).  A
 * file already checked by this process (same size and time) is trusted
 * and not read; another is read into block (prep_table_bytes(rows) bytes)
 * and checked, and when missing or bad the table is generated into block
 * and written.  *filled tells whether block now holds the table; note
 * receives what happened when the file was made ("the data set file ...
 * was missing: generated 16777216 rows (seed 2024) in 1.20 s"), else "". */
bool prep_file_ensure(int64_t rows, uint64_t seed, void *block, int threads, char *path,
                      size_t plen, bool *filled, char *note, size_t nlen, cl_err *err);

#endif
