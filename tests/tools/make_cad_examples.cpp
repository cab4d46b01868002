// Writes the CAD examples into a folder (scenes/cad): four_bar.step, the four-bar linkage as
// solids (tests/support/cad_examples.h); and, given a second folder (tests/fuzz/seeds-step), the
// STEP fuzzer's seed. The scenes beside the examples are the import's:
//   motus-cli import scenes/cad/four_bar.step --ground frame --joints --out scenes/cad/four_bar.json

#include <exception>
#include <iostream>
#include <string>

#include "tests/support/cad_examples.h"

int main(int argc, char** argv) {
    if (argc != 2 && argc != 3) {
        std::cerr << "usage: motus_make_cad_examples EXAMPLES_FOLDER [SEEDS_FOLDER]\n";
        return 2;
    }
    try {
        engine::test::writeFourBarStep(std::string(argv[1]) + "/four_bar.step");
        if (argc == 3)
            engine::test::writePinnedBlocksStep(std::string(argv[2]) + "/pinned_blocks.step");
    } catch (const std::exception& e) {
        std::cerr << "motus_make_cad_examples: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
