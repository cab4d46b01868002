#pragma once
// The contact part of a compiled model: per part its collision geometry, filter and material,
// resolved pair settings and the pairs that never touch (docs/contact.md).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/scene_spec.h"

namespace engine {

struct ContactPartModel {
    std::string name;
    bool ground = false;
    Transform X_WP0;  // initial pose (the ground's for good)
    CollisionFilter filter;
    std::vector<Shape> shapes;
};

struct ContactPairModel {
    std::string name;
    int partA = 0, partB = 0;  // partA < partB
    bool enabled = true;
    std::optional<double> friction, restitution;
};

struct ContactModel {
    bool enabled = false;
    ContactSettings settings;             // `pairs` resolved into the members below
    std::vector<ContactPartModel> parts;  // per SceneSpec part
    // Per SceneSpec part, side by side: a contact step reads two for each of its points (whole
    // part records, strings and shapes among them, were a cache miss each at 10,000 parts).
    std::vector<ContactMaterial> materials;
    std::vector<ContactPairModel> pairs;        // sorted by (partA, partB)
    std::vector<std::pair<int, int>> excluded;  // sorted (a < b): joined, or switched off

    // Whether parts a and b may touch (filters, joints, pair entries).
    bool mayTouch(int a, int b) const;
    // The pair entry of parts a and b, if the scene has one.
    const ContactPairModel* pair(int a, int b) const;
    // Friction and restitution of the pair: combined materials, then the pair's overrides.
    ContactMaterial combined(int a, int b) const;
};

ContactModel buildContactModel(const SceneSpec& spec);

}  // namespace engine
