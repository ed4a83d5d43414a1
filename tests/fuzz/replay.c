/* SPDX-License-Identifier: MIT */
/* Runs a fuzz target over the files of corpus directories, for builds without libFuzzer: the
 * committed corpus is a regression test under `meson test`. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "fuzz.h"
#include "util/macro.h"

int main(int argc, char *argv[]) {
        unsigned files = 0;

        for (int i = 1; i < argc; i++) {
                _cleanup_(closedirp) DIR *d = opendir(argv[i]);
                struct dirent *de;

                if (!d) {
                        perror(argv[i]);
                        return 1;
                }
                while ((de = readdir(d))) {
                        char path[4096];
                        char *data = NULL;
                        size_t len = 0;

                        if (de->d_name[0] == '.')
                                continue;
                        (void) snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
                        if (read_full_file_at(AT_FDCWD, path, 1024 * 1024, &data, &len) < 0) {
                                fprintf(stderr, "cannot read %s\n", path);
                                return 1;
                        }
                        (void) LLVMFuzzerTestOneInput((const uint8_t *) data, len);
                        free(data);
                        files++;
                }
        }
        printf("%u inputs replayed\n", files);
        return files > 0 ? 0 : 1;
}
