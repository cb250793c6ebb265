// pssim: discrete-event simulator of parameter-server training (command-line entry).
#include "sim/cli/command_line.hpp"

int main(int argc, char** argv) { return pssim::cli::run_command_line(argc, argv, {}); }
