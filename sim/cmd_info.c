#include "cmd.h"
#include "util.h"
int cmd_info(int argc, char **argv) { (void)argc; (void)argv; return EXIT_SOFTWARE; }
int cmd_check(int argc, char **argv) { (void)argc; (void)argv; return EXIT_SOFTWARE; }
