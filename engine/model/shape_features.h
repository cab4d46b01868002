#pragma once
// Snapping a picked point to the features of a shape, as a CAD user expects when placing a
// marker: face centres, edge midpoints and vertices of boxes, points on the axis of bodies of
// revolution (cylinder, capsule, cone), the centre of a sphere, the nearest vertex of a mesh.
// Each feature carries the direction a marker's z axis takes there: the outward normal of a
// face, the direction of an edge (a hinge along it), the shape's axis.

#include <vector>

#include "engine/model/scene_spec.h"

namespace engine {

struct ShapeFeature {
    enum class Kind { FaceCentre, EdgeMidpoint, Vertex, Axis, Centre };
    Kind kind = Kind::Centre;
    Vec3 p_P = Vec3::Zero();   // in the part frame
    Vec3 z_P = Vec3::UnitZ();  // unit direction for the marker's z axis
};

// The discrete features of a shape in the part frame (a body of revolution lists its axis
// end points and centre; snapFeature also projects onto the axis).
std::vector<ShapeFeature> shapeFeatures(const Shape& shape);

// The feature nearest to point p_P (part frame) among the part's shapes, including the
// projection of p_P onto each axis of revolution. A part without shapes gives its origin.
ShapeFeature snapFeature(const Part& part, const Vec3& p_P);

}  // namespace engine
