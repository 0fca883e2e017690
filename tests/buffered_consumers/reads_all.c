/* A C stdio consumer that reads everything (a 64-byte buffer, fgets to the end of input): exit 0. */
#include <stdio.h>

int main(void) {
    char buf[64];
    unsigned long bytes = 0;
    while (fgets(buf, sizeof buf, stdin) != NULL) {
        for (const char *c = buf; *c; c++) {
            bytes++;
        }
    }
    fprintf(stderr, "%lu bytes\n", bytes);
    printf("read\n"); /* a consumer that says nothing is consumer.silent */
    return 0;
}
