#include "engine/version.h"

namespace engine {

std::string_view versionString() {
    return MOTUS_VERSION_STRING;
}

}  // namespace engine
