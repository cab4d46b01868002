#include "engine/model/triangle_mesh.h"

#include <map>
#include <utility>

namespace engine {

double TriangleMesh::signedVolume() const {
    double six = 0.0;
    for (const auto& t : triangles)
        six += vertices[static_cast<std::size_t>(t[0])].dot(
            vertices[static_cast<std::size_t>(t[1])].cross(
                vertices[static_cast<std::size_t>(t[2])]));
    return six / 6.0;
}

bool TriangleMesh::isClosed() const {
    std::map<std::pair<int, int>, int> directed;
    for (const auto& t : triangles)
        for (int k = 0; k < 3; ++k)
            ++directed[{t[static_cast<std::size_t>(k)], t[static_cast<std::size_t>((k + 1) % 3)]}];
    for (const auto& [edge, count] : directed) {
        if (count != 1) return false;
        const auto back = directed.find({edge.second, edge.first});
        if (back == directed.end() || back->second != 1) return false;
    }
    return !triangles.empty();
}

}  // namespace engine
