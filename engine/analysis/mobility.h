#pragma once
// Mobility of a mechanism at its initial pose, worked out once for the CLI (`motus-cli info`)
// and the GUI:
//
//   coordinates  6 per moving part (the velocity coordinates v_W, ω')
//   equations    joint rows plus motion (driver) rows
//   grueblerDof  coordinates − equations: the Grübler–Kutzbach count, which assumes every
//                equation independent
//   actualDof    coordinates − rank Φq: what the mechanism can really do at that pose
//
// The rank and the redundant rows are the KKT solver's (engine/solver/kkt_solver.h): Φq taken
// in row order, a row dependent on the earlier ones is redundant. Each redundant row is named
// by its joint or motion, said in words (which relative motion it stops and what already
// stops it), and given a remedy: the change to the scene that removes it without changing
// what the mechanism can do. The common causes are recognised and worded for themselves:
//   * a closed loop whose revolute axes are all parallel (a planar linkage built from spatial
//     revolutes, and prismatic joints across the axes): three equations too many;
//   * a motion on a coordinate the joints (or the other motions) already fix;
//   * two joints between the same two parts imposing the same restraint twice;
// anything else gets a sentence naming the joint, its equation and the joints that imply it.

#include <memory>
#include <string>
#include <vector>

#include "engine/dynamics/status.h"
#include "engine/model/model.h"

namespace engine {

struct RedundantEquation {
    int row = 0;           // constraint row (joints' rows first, then one per motion)
    std::string joint;     // the joint the row belongs to; empty for a motion's row
    std::string motion;    // the motion the row belongs to; empty for a joint's row
    std::string equation;  // the joint's row label ("coincident y", "perpendicular x_I, z_J")
                           // or the motion's ("angle = f(time)")
    std::string meaning;   // in words: what the equation holds, the relative motion it stops
                           // (world directions at the initial pose) and what already stops it
    std::string remedy;    // what change to the scene would remove it
};

struct MobilityReport {
    // ok: everything below was worked out. Otherwise `message` says why not: no model, or the
    // initial pose cannot be assembled or gives a singular system. The counts are still filled
    // when `analysed` (the rank analysis ran; it describes the initial pose as given).
    bool ok = true;
    std::string message;
    Cause cause = Cause::Other;      // and, when not ok, the assembly's (Status::cause)
    std::vector<EntityId> entities;  // what `message` is about (Status::entities)
    bool analysed = false;

    int coordinates = 0;     // 6 per moving part
    int equations = 0;       // joint + motion equations
    int grueblerDof = 0;     // coordinates − equations (Grübler–Kutzbach count)
    int actualDof = 0;       // coordinates − rank of the constraint Jacobian at the initial pose
    int redundantCount = 0;  // equations − rank; = actualDof − grueblerDof
    std::vector<RedundantEquation> redundant;  // in row order

    // One line: "1 DOF (Grübler −2, 3 redundant equations)".
    std::string summary() const;
};

MobilityReport mobility(const std::shared_ptr<const Model>& model);

}  // namespace engine
