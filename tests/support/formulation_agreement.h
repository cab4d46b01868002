#pragma once
// How far two runs of one mechanism in two formulations (maximal and joint coordinates) are
// apart, gathered output by output: the parts' poses, the joints' reactions and rates, the
// motions' and servos' efforts and the work the motions put in (#46: two formulations, one
// answer). Header-only, for the tests that compare them.

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/outputs.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine::test {

struct FormulationAgreement {
    double position = 0.0;  // m and rad, worst
    double reaction = 0.0, largestReaction = 0.0;
    double work = 0.0, largestWork = 0.0;
    double effort = 0.0, largestEffort = 0.0;

    // Run `a` against run `b` (the reference) at one output.
    void add(const Model& model, const State& a, const State& b, const Outputs& oa,
             const Outputs& ob) {
        for (int body = 0; body < model.bodyCount(); ++body)
            position =
                std::max({position, (bodyPosition(a.q, body) - bodyPosition(b.q, body)).norm(),
                          bodyOrientation(a.q, body).angularDistance(bodyOrientation(b.q, body))});
        ASSERT_EQ(oa.reactions.size(), ob.reactions.size());
        for (std::size_t j = 0; j < ob.reactions.size(); ++j) {
            largestReaction = std::max(
                {largestReaction, ob.reactions[j].force_W.norm(), ob.reactions[j].torque_W.norm()});
            reaction =
                std::max({reaction, (oa.reactions[j].force_W - ob.reactions[j].force_W).norm(),
                          (oa.reactions[j].torque_W - ob.reactions[j].torque_W).norm()});
        }
        // What the motions put in: the maximal run's from its rows' multipliers, the
        // recursive one's from the generalised force each motion exerts.
        largestWork = std::max(largestWork, std::abs(ob.energies.driverWork));
        work = std::max(work, std::abs(oa.energies.driverWork - ob.energies.driverWork));
        ASSERT_EQ(oa.driverEffort.size(), ob.driverEffort.size());
        ASSERT_EQ(oa.controllerEffort.size(), ob.controllerEffort.size());
        for (std::size_t d = 0; d < ob.driverEffort.size(); ++d) {
            largestEffort = std::max(largestEffort, std::abs(ob.driverEffort[d]));
            effort = std::max(effort, std::abs(oa.driverEffort[d] - ob.driverEffort[d]));
        }
        ASSERT_EQ(oa.couplerForce.size(), ob.couplerForce.size());
        for (std::size_t c = 0; c < ob.couplerForce.size(); ++c) {  // (a coupler's force too)
            largestEffort = std::max(largestEffort, std::abs(ob.couplerForce[c]));
            effort = std::max(effort, std::abs(oa.couplerForce[c] - ob.couplerForce[c]));
        }
        for (std::size_t c = 0; c < ob.controllerEffort.size(); ++c) {
            largestEffort = std::max(largestEffort, std::abs(ob.controllerEffort[c]));
            effort = std::max(effort, std::abs(oa.controllerEffort[c] - ob.controllerEffort[c]));
        }
        // The joints' rates.
        ASSERT_EQ(oa.jointRates.size(), ob.jointRates.size());
        for (Eigen::Index c = 0; c < ob.jointRates.size(); ++c)
            EXPECT_NEAR(oa.jointRates(c), ob.jointRates(c),
                        1e-7 * std::max(1.0, std::abs(ob.jointRates(c))));
        EXPECT_LT(oa.constraintError, 1e-9);
    }

    // Both runs advanced to `t` and compared there (`a`, in joint coordinates, against `b`).
    // (Call under ASSERT_NO_FATAL_FAILURE.)
    void follow(const Model& model, ForwardDynamics& a, ForwardDynamics& b, double t) {
        ASSERT_TRUE(b.advance(t).ok);
        const Status s = a.advance(t);
        ASSERT_TRUE(s.ok) << s.message;
        Outputs oa, ob;
        ASSERT_TRUE(a.outputs(oa).ok);
        ASSERT_TRUE(b.outputs(ob).ok);
        add(model, a.state(), b.state(), oa, ob);
    }

    // #46's acceptance: 1e-8 m and rad, and 1e-8 of the largest reaction, work and effort.
    // (`workTolerance`: the motions' work, a quadrature of their power over each run's steps)
    void expectWithin(double tolerance = 1e-8, double workTolerance = 1e-8) const {
        EXPECT_LT(position, tolerance);
        EXPECT_LT(reaction, tolerance * std::max(1.0, largestReaction));
        EXPECT_LT(work, workTolerance * std::max(1.0, largestWork));
        EXPECT_LT(effort, tolerance * std::max(1.0, largestEffort));
    }
};

}  // namespace engine::test
