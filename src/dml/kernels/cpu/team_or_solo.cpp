#include "dml/kernels/cpu/team_or_solo.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace freedml::dml::cpu {

bool TeamOrSolo::SoloIsFaster() const {
    const int64_t team = TeamNs(), solo = SoloNs();
    // The team until both have been measured, and unless the twin is clearly faster: the twin leaves
    // the team's threads to fall asleep, which the next team-sized primitive pays for.
    return solo > 0 && team > 0 && tuning_.soloMargin * double(solo) < double(team);
}

// Kernels of a model run equally often: an offset of a few executions, from the object's address,
// keeps their trials from falling into the same inference.
int64_t TeamOrSolo::TrialOffset(bool first) const {
    const int64_t spread = int64_t((reinterpret_cast<uintptr_t>(this) >> 6) % 61);
    return first ? spread % 4 : spread;
}

bool TeamOrSolo::ChooseSolo(int64_t nowNs) {
    // An execution of the trial under way.
    int left = trialLeft_.load(std::memory_order_relaxed);
    while (left > 0) {
        if (trialLeft_.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) {
            return trialSolo_.load(std::memory_order_relaxed);
        }
    }
    const int64_t execution = executions_.fetch_add(1, std::memory_order_relaxed);
    const bool solo = SoloIsFaster();
    // A switch to the twin starts the team's trials at their shortest interval again.
    if (solo && !lastSolo_.exchange(true, std::memory_order_relaxed)) {
        teamTrialIntervalNs_.store(tuning_.teamTrialEveryNs, std::memory_order_relaxed);
    } else if (!solo) {
        lastSolo_.store(false, std::memory_order_relaxed);
    }
    Form& other = form_[solo ? 0 : 1];
    int64_t last = lastTrialNs_.load(std::memory_order_relaxed);
    bool due = false, fast = false;
    if (!solo && other.samples.load(std::memory_order_relaxed) == 0) {
        // The twin's first trial, early, once: a machine busy from the start shows at once.
        due = execution >= tuning_.firstTrialAfterExecutions + TrialOffset(true);
    } else {
        // Quickly while the team runs well behind its own best (or the twin runs) and a form has
        // few samples; then the team soon while the twin runs, and the twin rarely while the team
        // runs, which is all an idle machine pays.
        const int64_t teamBest = teamBestNs_.load(std::memory_order_relaxed);
        const bool suspect = solo || (teamBest > 0 && double(TeamNs()) > tuning_.suspectFactor * double(teamBest));
        fast = suspect && std::min(form_[0].samples.load(std::memory_order_relaxed),
                                   form_[1].samples.load(std::memory_order_relaxed)) < kFirstSamples;
        const int64_t everyNs = fast   ? tuning_.firstTrialsEveryNs
                                : solo ? teamTrialIntervalNs_.load(std::memory_order_relaxed)
                                       : tuning_.trialEveryNs;
        const int64_t everyExecutions = fast   ? tuning_.firstTrialsEveryExecutions
                                        : solo ? tuning_.teamTrialEveryExecutions
                                               : tuning_.trialEveryExecutions;
        due = (last == INT64_MIN || nowNs - last >= everyNs) &&
              execution - lastTrialExecution_.load(std::memory_order_relaxed) >= everyExecutions + TrialOffset(fast);
    }
    if (due && lastTrialNs_.compare_exchange_strong(last, nowNs, std::memory_order_relaxed)) {
        lastTrialExecution_.store(execution, std::memory_order_relaxed);
        if (solo && !fast) {
            const int64_t interval = teamTrialIntervalNs_.load(std::memory_order_relaxed);
            teamTrialIntervalNs_.store(std::min(2 * interval, tuning_.teamTrialAtMostEveryNs),
                                       std::memory_order_relaxed);
        }
        trialSolo_.store(!solo, std::memory_order_relaxed);
        other.skipNext.store(true, std::memory_order_relaxed);
        trialLeft_.store((solo ? kTeamTrialLength : kTrialLength) - 1, std::memory_order_relaxed);
        return !solo;
    }
    return solo;
}

void TeamOrSolo::Record(bool solo, int64_t tookNs) {
    Form& form = form_[solo ? 1 : 0];
    if (form.skipNext.exchange(false, std::memory_order_relaxed)) return;  // cold (see above)
    form.samples.fetch_add(1, std::memory_order_relaxed);
    const int64_t average = form.averageNs.load(std::memory_order_relaxed);
    if (average == 0) {
        form.averageNs.store(tookNs, std::memory_order_relaxed);
        if (!solo) teamBestNs_.store(tookNs, std::memory_order_relaxed);
        return;
    }
    // A faster time moves the average half way down at once (the first samples may be warming up);
    // a slower one a little for the current form, more for a trial of the other, and counts as at
    // most twice the average, so that one outlier (a page fault, a preemption) cannot switch forms.
    const double weight = tookNs < average         ? tuning_.fasterWeight
                          : solo == SoloIsFaster() ? tuning_.currentWeight
                                                   : tuning_.trialWeight;
    const int64_t sample = std::min(tookNs, 2 * average);
    form.averageNs.store(average + int64_t(weight * double(sample - average)), std::memory_order_relaxed);
    if (!solo) {
        int64_t best = teamBestNs_.load(std::memory_order_relaxed);
        while (tookNs < best && !teamBestNs_.compare_exchange_weak(best, tookNs, std::memory_order_relaxed)) {
        }
    }
}

namespace {

ContentionPolicy PolicyFromEnvironment() {
    const char* value = std::getenv("FREEDML_CPU_CONTENTION");
    if (!value || !*value || std::strcmp(value, "auto") == 0) return ContentionPolicy::Automatic;
    if (std::strcmp(value, "off") == 0 || std::strcmp(value, "0") == 0) return ContentionPolicy::AlwaysTeam;
    if (std::strcmp(value, "on") == 0 || std::strcmp(value, "1") == 0) return ContentionPolicy::AlwaysSolo;
    std::fprintf(stderr, "FreeDML: FREEDML_CPU_CONTENTION=%s is none of auto, off and on; using auto.\n", value);
    return ContentionPolicy::Automatic;
}

std::atomic<int>& PolicySlot() {
    static std::atomic<int> policy{int(PolicyFromEnvironment())};
    return policy;
}

}  // namespace

ContentionPolicy CpuContentionPolicy() { return ContentionPolicy(PolicySlot().load(std::memory_order_relaxed)); }

void SetCpuContentionPolicyForTesting(ContentionPolicy policy) {
    PolicySlot().store(int(policy), std::memory_order_relaxed);
}

FormChoice ChooseForm(TeamOrSolo& chooser) {
    switch (CpuContentionPolicy()) {
        case ContentionPolicy::AlwaysTeam:
            return {};
        case ContentionPolicy::AlwaysSolo:
            return {true, -1};
        case ContentionPolicy::Automatic:
            break;
    }
    const int64_t now = MonotonicNs();
    return {chooser.ChooseSolo(now), now};
}

void RecordForm(TeamOrSolo& chooser, const FormChoice& choice) {
    if (choice.startNs >= 0) chooser.Record(choice.solo, MonotonicNs() - choice.startNs);
}

int64_t MonotonicNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace freedml::dml::cpu
