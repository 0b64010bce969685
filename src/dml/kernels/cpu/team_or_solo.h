// Team or solo: which of a primitive's two forms runs. oneDNN shares a primitive out in equal
// static parts, one per OpenMP thread, so one thread that shares its core with a busy process holds
// the whole primitive back: beside one spinning process a two-thread convolution on two cores runs
// at 0.4 of its idle speed, while the same problem sized for one thread, which the scheduler moves
// to the free core, keeps half of it. A GEMM or convolution of medium size therefore has a twin
// sized for one thread (onednn.cpp), and each execution runs the form that has lately been faster,
// by a running average of each form's wall time (quick to fall, slow to rise). The other form is
// tried now and then: two executions of the twin or four of the team, the first not counted as it
// may pay for cold caches or sleeping threads. The twin's first trial comes early (about the tenth
// execution), so that a machine busy from the start shows at once; then trials come quickly while
// the team runs well behind its own best or the twin runs, until each form has a few samples; then,
// while the twin runs, the team is tried 50 ms after the switch (so that it is back soon after a
// burst of contention) and then at doubling intervals up to 400 ms, and while the team runs, the
// twin once a second and at most once in 200 executions, which is all an idle machine pays.
// FREEDML_CPU_CONTENTION=off always runs the team, =on always the twin (docs/USER-GUIDE.md).
#pragma once

#include <atomic>
#include <cstdint>

namespace freedml::dml::cpu {

class TeamOrSolo {
public:
    struct Tuning {
        // A trial of the other form at most this often and after at least so many executions (a
        // model's kernel runs once an inference), faster while it has fewer than kFirstSamples.
        int64_t trialEveryNs = 1'000'000'000;
        int64_t trialEveryExecutions = 200;
        int64_t firstTrialsEveryNs = 10'000'000;
        int64_t firstTrialsEveryExecutions = 4;
        int64_t firstTrialAfterExecutions = 8;  // the twin's first trial (and a spread of up to 3)
        // While the twin runs, the team's first trial comes after this long, and each further one
        // twice as long after the last, up to teamTrialAtMostEveryNs: a burst of contention (another
        // process for some milliseconds, a host that takes a virtual core away) costs tens of
        // milliseconds at the twin's speed, and lasting contention few trials of a team that waits
        // for a preempted thread.
        int64_t teamTrialEveryNs = 50'000'000;
        int64_t teamTrialAtMostEveryNs = 400'000'000;
        int64_t teamTrialEveryExecutions = 50;
        double currentWeight = 1.0 / 16;        // of a slower time in the current form's average
        double trialWeight = 1.0 / 4;           // of a slower trial in the other form's average
        double fasterWeight = 1.0 / 2;          // of a faster time in either
        double suspectFactor = 2.0;             // the team's average over its best that starts trials
        double soloMargin = 1.1;                // the twin runs while its average times this is below the team's
    };
    static constexpr int kFirstSamples = 8;  // counted samples a form gets at the first trials' pace
    static constexpr int kTrialLength = 2;   // executions in a trial of the twin, the first not counted
    // Executions in a trial of the team, the first not counted: its threads, asleep while the twin
    // ran, may take more than one execution to come back (a virtual machine's cores wake slowly).
    static constexpr int kTeamTrialLength = 4;
    TeamOrSolo() = default;
    explicit TeamOrSolo(const Tuning& tuning) : tuning_(tuning) {}

    // Whether the execution starting at `nowNs` runs the solo form (a trial included).
    bool ChooseSolo(int64_t nowNs);
    // The wall time of an execution in the form ChooseSolo gave.
    void Record(bool solo, int64_t tookNs);

    // The forms' averages in nanoseconds (0: no sample counted yet).
    int64_t TeamNs() const { return form_[0].averageNs.load(std::memory_order_relaxed); }
    int64_t SoloNs() const { return form_[1].averageNs.load(std::memory_order_relaxed); }

private:
    struct Form {
        std::atomic<int64_t> averageNs{0};
        std::atomic<int> samples{0};
        std::atomic<bool> skipNext{true};  // the form's first execution, and each trial's, is cold
    };
    bool SoloIsFaster() const;
    int64_t TrialOffset(bool first) const;

    Tuning tuning_;
    Form form_[2];  // team, solo
    std::atomic<int64_t> lastTrialNs_{INT64_MIN};
    std::atomic<int64_t> executions_{0}, lastTrialExecution_{0};
    std::atomic<int64_t> teamBestNs_{0};  // the team's fastest counted execution
    std::atomic<int> trialLeft_{0};       // executions of the trial under way still to run
    std::atomic<bool> trialSolo_{false};
    std::atomic<bool> lastSolo_{false};                    // the form the last choice ran (trials aside)
    std::atomic<int64_t> teamTrialIntervalNs_{tuning_.teamTrialEveryNs};  // while the twin runs
};

enum class ContentionPolicy { Automatic, AlwaysTeam, AlwaysSolo };

// FREEDML_CPU_CONTENTION (auto, off, on), read once; tests may override it.
ContentionPolicy CpuContentionPolicy();
void SetCpuContentionPolicyForTesting(ContentionPolicy policy);

// Sets the policy for its lifetime and restores the one before (a failing test included).
class ScopedCpuContentionPolicyForTesting {
public:
    explicit ScopedCpuContentionPolicyForTesting(ContentionPolicy policy) : before_(CpuContentionPolicy()) {
        SetCpuContentionPolicyForTesting(policy);
    }
    ~ScopedCpuContentionPolicyForTesting() { SetCpuContentionPolicyForTesting(before_); }
    ScopedCpuContentionPolicyForTesting(const ScopedCpuContentionPolicyForTesting&) = delete;
    ScopedCpuContentionPolicyForTesting& operator=(const ScopedCpuContentionPolicyForTesting&) = delete;

private:
    ContentionPolicy before_;
};

int64_t MonotonicNs();

// Work (multiply-adds) of a product below which it runs on one thread whatever the load: on a few
// cores, a team's fork and join (and, on a busy machine, team threads that spin or have gone to
// sleep) cost more than the other cores give back on a problem this small (a 96 x 96 x 96 product
// takes about 15 us on one core).
constexpr double kOneThreadWork = 96.0 * 96.0 * 96.0;
// Work up to which a product shared out on the team has a one-thread form to choose instead.
// Larger problems keep the team: beside a busy process their preempted thread still adds more
// than it holds back.
constexpr double kSoloTwinWork = 512.0 * 512.0 * 512.0;

// Which form one execution of a kernel that has both runs and, where the choice is measured, when
// it started: FREEDML_CPU_CONTENTION's fixed form, or the chooser's.
struct FormChoice {
    bool solo = false;
    int64_t startNs = -1;  // -1: the policy fixes the form; nothing to measure
};
FormChoice ChooseForm(TeamOrSolo& chooser);
// Reports the execution's wall time (from choice.startNs to now) to the chooser, where measured.
void RecordForm(TeamOrSolo& chooser, const FormChoice& choice);

}  // namespace freedml::dml::cpu
