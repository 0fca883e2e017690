/* A head -n1 consumer in C: stdio (its own buffer, 4 KiB or more) read through a small line buffer,
   cat-like, up to the first end of line; then exit 0 with the rest unread. */
#include <stdio.h>
#include <string.h>

int main(void) {
    char buf[64];
    while (fgets(buf, sizeof buf, stdin) != NULL) {
        fputs(buf, stdout);
        if (strchr(buf, '\n') != NULL) {
            return 0;
        }
    }
    return 0;
}
