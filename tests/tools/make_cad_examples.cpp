// Writes the CAD examples into a folder (scenes/cad): four_bar.step, the four-bar linkage as
// solids (tests/support/cad_examples.h). The scenes beside them are the import's:
//   motus-cli import scenes/cad/four_bar.step --ground frame --joints --out scenes/cad/four_bar.json

#include <exception>
#include <iostream>
#include <string>

#include "tests/support/cad_examples.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: motus_make_cad_examples FOLDER\n";
        return 2;
    }
    try {
        engine::test::writeFourBarStep(std::string(argv[1]) + "/four_bar.step");
    } catch (const std::exception& e) {
        std::cerr << "motus_make_cad_examples: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
