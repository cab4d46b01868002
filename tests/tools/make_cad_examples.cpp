// Writes the CAD examples into a folder (scenes/cad): four_bar.step, the four-bar linkage as
// solids (tests/support/cad_examples.h); and, given a second folder (tests/fuzz/seeds-step), the
// STEP fuzzer's seed. The scenes beside the examples are the import's:
//   motus-cli import scenes/cad/four_bar.step --ground frame --joints --out scenes/cad/four_bar.json
// With --crank DEGREES the four-bar is drawn with its crank at that angle (60 by default): the
// same linkage changed in CAD, for the re-import's tests (motus-cli import --update). With
// --padding MB the file is padded with that many megabytes of points nothing uses (a large
// assembly's file holds millions of entities), for the tests of the reader's memory bound.

#include <cmath>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "engine/math/constants.h"
#include "tests/support/cad_examples.h"

int main(int argc, char** argv) {
    std::vector<std::string> folders;
    double crank = 60.0, padding = 0.0;
    for (int k = 1; k < argc; ++k) {
        const std::string arg = argv[k];
        if (arg == "--crank" && k + 1 < argc) {
            try {
                crank = std::stod(argv[++k]);
            } catch (const std::exception&) {
                crank = NAN;
            }
            if (!std::isfinite(crank)) {
                std::cerr << "motus_make_cad_examples: --crank takes an angle in degrees\n";
                return 2;
            }
        } else if (arg == "--padding" && k + 1 < argc) {
            padding = std::atof(argv[++k]);
        } else {
            folders.push_back(arg);
        }
    }
    if (folders.empty() || folders.size() > 2) {
        std::cerr << "usage: motus_make_cad_examples EXAMPLES_FOLDER [SEEDS_FOLDER] "
                     "[--crank DEGREES]\n";
        return 2;
    }
    try {
        const std::string file = folders[0] + "/four_bar.step";
        engine::test::writeFourBarStep(file, crank * engine::kPi / 180);
        if (padding > 0.0) engine::test::padStep(file, static_cast<std::size_t>(padding * 1048576));
        if (folders.size() == 2)
            engine::test::writePinnedBlocksStep(folders[1] + "/pinned_blocks.step");
    } catch (const std::exception& e) {
        std::cerr << "motus_make_cad_examples: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
