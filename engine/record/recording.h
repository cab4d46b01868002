#pragma once
// Recording: every recorded frame of a run, compact and randomly accessible from any thread.
//
// A frame is a fixed-length row of doubles laid out by FrameLayout (state needed to resume
// exactly, then the outputs plots and the view need), stored in chunks of kChunkFrames rows,
// so frame k is found in O(1) and the frame at time t in O(log n). Memory is bounded by
// RecordingOptions::maxBytes with a stated policy:
//   Decimate      drop every other frame (keeping the first and the last) and from then on
//                 record every other output: the run goes on at half the time resolution
//   StopRun       refuse further frames; the simulator pauses and says why
//   DropOldest    forget the oldest frames a chunk at a time (for a run whose frames go on
//                 elsewhere as they come, e.g. to the CLI's files through a frame sink):
//                 first() says which frames are still held
// Contact scenes also keep every frame's contact forces (point, normal, normal and friction
// force per contact point) and persistent contact points (State::contacts, so a run resumed
// from the frame goes on bit for bit), counted in the memory limit, and per-frame summary
// channels.
// Re-running from frame k moves frame k and the frames after it aside as the *previous run*:
// they stay readable, for the view's ghost and the plots' dashed curves, until discarded or
// replaced by the next re-run; the new frames do not overwrite them.
//
// One writer (the engine thread) and any number of readers; a shared mutex is held only for
// the copy of a row.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "engine/analysis/outputs.h"

namespace engine {

enum class MemoryPolicy { Decimate, StopRun, DropOldest };

struct RecordingOptions {
    std::size_t maxBytes = std::size_t(1) << 30;  // 1 GiB
    MemoryPolicy policy = MemoryPolicy::Decimate;
    int recordEvery = 1;         // record one output step in k
    bool stepOrigins = true;     // see FrameLayout
    bool solverMemory = true;    // see FrameLayout
    bool springChannels = true;  // see FrameLayout
    bool stepperMemory = true;   // see FrameLayout
};

// A named quantity over time (engine/record/channel_names.h): a column of the frame row, or the
// sum of columns (energy.potential, energy.total).
struct Channel {
    std::string name;  // "crank.x", "pinB.Fz", "energy.kinetic", ...
    std::string unit;  // "m", "N", "J", "rad", ...
    int offset = 0;
    std::vector<int> plus = {};  // columns added to the one at `offset`

    // As Energies sums them: kinetic + (gravitational + elastic).
    double value(const double* row) const {
        if (plus.empty()) return row[offset];
        double rest = 0.0;
        for (int k : plus) rest += row[k];
        return row[offset] + rest;
    }
};

class FrameLayout {
public:
    // `stepOrigins`: keep, for a model stepped by an adaptive integrator, the start of the
    // step each frame lies in (a run resumed from the frame then goes on exactly); run files
    // written before Motus kept them are read without.
    // `solverMemory`: keep the constraint solvers' memory of singular positions passed
    // (State::solverMemory); run files written before Motus kept it are read without.
    // `springChannels`: keep the springs' force, length and rate; run files written before
    // Motus kept them are read without.
    // `stepperMemory`: with the solvers' memory, what the joint-space loop stepper carries from
    // step to step (LoopStepper::memorySize); run files written before Motus kept it are read
    // without.
    explicit FrameLayout(const Model& model, bool stepOrigins = true, bool solverMemory = true,
                         bool springChannels = true, bool stepperMemory = true);
    bool hasStepOrigins() const { return originOffset_ >= 0; }
    bool hasSolverMemory() const { return memoryOffset_ >= 0; }
    int size() const { return size_; }  // doubles per frame
    const std::vector<Channel>& channels() const { return channels_; }
    int findChannel(const std::string& name) const;  // index into channels(), −1 if none
    bool hasContact() const { return contact_; }

    void encode(const State& state, const Outputs& outputs, double* row) const;
    void decode(const double* row, State& state, Outputs& outputs) const;

private:
    int nq_, nv_, nc_, joints_, drivers_;
    int controllers_ = 0;  // joint controllers, each with an effort channel
    int limits_ = 0;       // joint limits, each with a stop force channel
    int frictions_ = 0;    // joint frictions, each with a friction force channel
    int couplers_ = 0;     // couplers, each with a force and two effort channels
    int springs_ = 0;      // springs and rotational springs: force, length and rate each
    // Moving frames' bodies, the parts seen in each (engine/kinematics/part_motion.h): every
    // part off the ground but the frame's own.
    std::vector<std::pair<int, Transform>> frames_;  // body, X_PB
    std::vector<PartModel> seen_;
    // A part that shares its body (welded, engine/model/welds.h) or stands welded to the
    // ground: columns of its own, the first of its nine channels and where they start in the
    // row.
    struct Derived {
        PartModel part;
        int channel = 0;
        int offset = 0;
    };
    std::vector<Derived> derived_;
    std::vector<int> powerCoordinate_;  // drivers then controllers: the coordinate they power
    bool contact_ = false;
    std::vector<std::pair<int, int>> contactPairs_;  // part indices of the scene's pair entries
    int size_ = 0;
    int originOffset_ = -1;  // where the step origin is kept, −1: not kept
    int memoryOffset_ = -1;  // where the solvers' memory is kept, −1: not kept
    int switchOffset_ = -1;  // where State::switches are kept, −1: none
    int restOffset_ = -1;    // where State::rest is kept (one per body), −1: parts do not sleep
    std::size_t switchCount_ = 0;
    int laggedOffset_ = -1;  // where State::lagged is kept, −1: none (Model::laggedCount)
    int laggedCount_ = 0;
    int memorySize_ = 0;
    std::vector<Channel> channels_;
};

// Channels of `layout` whose names are close to `name` (a typo, a case slip, another quantity of
// the same part or joint), closest first, at most `count`: for messages about a channel that a
// run does not record.
std::vector<std::string> closeChannelNames(const FrameLayout& layout, const std::string& name,
                                           std::size_t count = 3);

// What is wrong with a plot that names channels `layout` lacks, in one sentence: "plot 'P'
// names channels this run does not record: 'crank.xx' (close: 'crank.x', 'crank.vx'), 'foo'
// (no close name)", the first five named (with the count when there are more), the horizontal
// axis' channel included; "" when the run records every channel it names.
std::string unknownPlotChannels(const std::string& plotName,
                                const std::vector<std::string>& channels, const std::string& x,
                                const FrameLayout& layout);

// What a frame of a contact scene holds besides its row.
struct FrameContacts {
    std::vector<ContactForce> forces;           // Outputs::contacts
    std::vector<ContactPointState> persistent;  // State::contacts
    std::size_t bytes() const {
        return forces.size() * sizeof(ContactForce) + persistent.size() * sizeof(ContactPointState);
    }
};

class Recording {
public:
    // Frames per chunk at most; fewer when a row is large, so that one chunk is at most a
    // sixteenth of the memory limit and the limit holds from the first frame on.
    static constexpr std::size_t kChunkFrames = 1024;

    Recording(const Model& model, RecordingOptions options);

    enum class Append { Recorded, Skipped, Decimated, Full };
    // Engine thread. Skipped: not a recorded output (recordEvery; `always` records it anyway,
    // e.g. where a run pauses); Full: StopRun and no room.
    Append append(const State& state, const Outputs& outputs, bool always = false);
    // Engine thread: whether the next append() records its frame without `always` (outputs of
    // a frame that is skipped need not be computed).
    bool recordsNext() const { return outputCounter_ % recordEvery_ == 0; }
    // Engine thread: frames after `frame` are dropped; they and `frame` become the previous run.
    void truncateAfter(std::size_t frame);

    // Any thread. Frames are numbered from 0 for the whole run; those before first() were
    // dropped (DropOldest) and read as absent.
    std::size_t size() const;
    std::size_t first() const;
    double time(std::size_t frame) const;
    std::size_t frameAtOrBefore(double t) const;  // last frame with time ≤ t (0 if none)
    bool read(std::size_t frame, State& state, Outputs& outputs) const;
    // Values of channel `channel` for frames [first, last), every `stride`-th, with times.
    void series(int channel, std::size_t first, std::size_t last, std::size_t stride,
                std::vector<double>& times, std::vector<double>& values) const;
    // The previous run (see above). previousFrom/Until: its time range (both 0 if none);
    // readPrevious: its last frame at or before t (false if none); previousSeries: a channel of
    // every stride-th of its frames, the last one included.
    bool hasPrevious() const;
    double previousFrom() const;
    double previousUntil() const;
    bool readPrevious(double t, State& state, Outputs& outputs) const;
    void previousSeries(int channel, std::size_t stride, std::vector<double>& times,
                        std::vector<double>& values) const;
    void discardPrevious();
    std::size_t bytes() const;
    int decimations() const;
    int recordEvery() const;
    const FrameLayout& layout() const { return layout_; }
    const RecordingOptions& options() const { return options_; }

private:
    const double* rowLocked(std::size_t frame) const;
    double* pushLocked();
    void decimateLocked();
    void dropOldestChunkLocked();

    FrameLayout layout_;
    std::size_t chunkFrames_ = kChunkFrames;  // rows per chunk (a power of two ≤ kChunkFrames)
    RecordingOptions options_;
    mutable std::shared_mutex mutex_;
    std::vector<std::unique_ptr<double[]>> chunks_;
    std::size_t frames_ = 0;  // frames recorded in all
    std::size_t first_ = 0;   // the first frame still held (a multiple of chunkFrames_)
    // Per held frame (index k − first_): times for the O(log n) search, contact forces.
    std::vector<double> times_;
    std::vector<std::vector<double>> previous_;  // rows moved aside by truncateAfter
    std::vector<double> previousTimes_;
    std::vector<FrameContacts> contacts_, previousContacts_;
    std::size_t contactBytes_ = 0;
    int recordEvery_ = 1;
    long outputCounter_ = 0;
    int decimations_ = 0;
};

}  // namespace engine
