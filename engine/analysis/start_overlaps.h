#pragma once
// Parts that start a run inside one another: a pile set down in one place, a part placed into
// the floor, a copy dropped on its original. Contact pushes such parts apart (no faster than
// contact.pushSpeed, rigid contact), so the run goes on, but what it shows at first is not the
// scene as drawn: the user is told which parts, how deep and how many pairs.

#include <cstddef>
#include <utility>
#include <vector>

namespace engine {

struct Model;
struct State;

struct StartOverlaps {
    // Overlaps of at most this depth are left alone: by default the slop and what one step
    // pushes out at pushSpeed (with the defaults 10 µm and 1 mm) [m].
    double threshold = 0.0;
    std::size_t pairs = 0;       // pairs of parts deeper than the threshold
    double depth = 0.0;          // the deepest of them [m]
    int partA = -1, partB = -1;  // its two parts (Model::parts), −1 when no pair is
    // Every such pair (Model::parts indices, the lower first), by index.
    std::vector<std::pair<int, int>> each;
};

// The overlaps at `state` (its positions, in body coordinates) between the parts that collide
// (the contact model's filters: jointed neighbours and filtered pairs are not looked at), deeper
// than `threshold` (negative: the slop and one step's push-out). None when contact is off.
StartOverlaps findStartOverlaps(const Model& model, const State& state, double threshold = -1.0);

}  // namespace engine
