// The choice between a oneDNN primitive sized for its team and the twin sized for one thread, fed
// synthetic wall times (milliseconds written as nanoseconds): the team runs until it falls well
// behind its own best, then each execution runs the form that has lately been faster, with trials
// of the other.
#include <gtest/gtest.h>

#include "dml/kernels/cpu/team_or_solo.h"

namespace freedml::dml::cpu::test {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kTeam = kMs / 10, kSolo = 2 * kMs / 10;  // idle times: the team twice as fast

// Runs `count` executions 1 ms apart from `*now`, the team taking `teamNs` (or `wakeNs` right after
// a solo execution, when its threads have gone to sleep) and the twin `soloNs`; returns how many
// ran solo.
int Execute(TeamOrSolo& chooser, int64_t* now, int count, int64_t teamNs, int64_t soloNs, int64_t wakeNs = 0) {
    int solos = 0;
    bool previousSolo = false;
    for (int i = 0; i < count; ++i, *now += kMs) {
        const bool solo = chooser.ChooseSolo(*now);
        chooser.Record(solo, solo ? soloNs : previousSolo && wakeNs ? wakeNs : teamNs);
        solos += solo;
        previousSolo = solo;
    }
    return solos;
}

TEST(TeamOrSolo, AnIdleMachineTriesTheTwinOnceEarlyThenOnceASecond) {
    TeamOrSolo chooser;
    int64_t now = 0;
    EXPECT_EQ(Execute(chooser, &now, 100, kTeam, kSolo), TeamOrSolo::kTrialLength);
    EXPECT_EQ(chooser.TeamNs(), kTeam);
    EXPECT_EQ(chooser.SoloNs(), kSolo);
    EXPECT_LE(Execute(chooser, &now, 10'000, kTeam, kSolo), 10 * TeamOrSolo::kTrialLength);
    // Noise (every third execution 1.4 times slower) starts no quick trials.
    int solos = 0;
    for (int i = 0; i < 3000; ++i) {
        const bool solo = chooser.ChooseSolo(now += kMs);
        chooser.Record(solo, solo ? kSolo : i % 3 == 0 ? 14 * kTeam / 10 : kTeam);
        solos += solo;
    }
    EXPECT_LE(solos, 3 * TeamOrSolo::kTrialLength);
}

TEST(TeamOrSolo, AMachineBusyFromTheStartRunsTheTwinAfterItsFirstTrial) {
    // The team is never fast here (its best is as slow as the rest), so only the early trial
    // shows the twin is faster.
    TeamOrSolo chooser;
    int64_t now = 0;
    Execute(chooser, &now, 20, 25 * kTeam / 10, kSolo);
    EXPECT_LT(chooser.SoloNs(), chooser.TeamNs());
    EXPECT_GE(Execute(chooser, &now, 1000, 25 * kTeam / 10, kSolo), 950);
}

TEST(TeamOrSolo, ABusyMachineSwitchesToTheTwinSoonAndBack) {
    TeamOrSolo chooser;
    int64_t now = 0;
    Execute(chooser, &now, 100, kTeam, kSolo);
    // Another process takes a core: the team slows to 2.5x, the twin keeps its time.
    const int solos = Execute(chooser, &now, 1000, 25 * kTeam / 10, kSolo);
    EXPECT_GE(solos, 900) << "the twin within some executions";
    EXPECT_LT(chooser.SoloNs(), chooser.TeamNs());
    // The other process ends; the team's threads, asleep while the twin ran, make each trial's
    // first execution ten times slower. The team's trials, at doubling intervals of at most 400 ms
    // (here 1 ms an execution) after a second of contention, bring it back.
    EXPECT_LE(Execute(chooser, &now, 500, kTeam, kSolo, 10 * kTeam), 400 + TeamOrSolo::kTrialLength);
    EXPECT_LT(chooser.TeamNs(), chooser.SoloNs());
    EXPECT_LE(Execute(chooser, &now, 1000, kTeam, kSolo), TeamOrSolo::kTrialLength);
    // A burst of 100 ms: the team's first trial after the switch, within 50 ms and 110 executions,
    // brings it back.
    EXPECT_GE(Execute(chooser, &now, 100, 25 * kTeam / 10, kSolo), 40);
    EXPECT_LE(Execute(chooser, &now, 150, kTeam, kSolo, 10 * kTeam), 110 + TeamOrSolo::kTrialLength);
    EXPECT_LE(Execute(chooser, &now, 1000, kTeam, kSolo), TeamOrSolo::kTrialLength);
}

TEST(TeamOrSolo, LastingContentionTriesTheTeamAtMostEvery400Milliseconds) {
    TeamOrSolo chooser;
    int64_t now = 0;
    Execute(chooser, &now, 100, kTeam, kSolo);
    Execute(chooser, &now, 100, 25 * kTeam / 10, kSolo);
    // Ten seconds more: trials at 50, 100, 200, then every 400 ms, four executions each.
    const int teams = 10'000 - Execute(chooser, &now, 10'000, 25 * kTeam / 10, kSolo);
    EXPECT_LE(teams, (10'000 / 400 + 4) * TeamOrSolo::kTeamTrialLength);
    EXPECT_GE(teams, (10'000 / 400 - 1) * TeamOrSolo::kTeamTrialLength);
}

TEST(TeamOrSolo, TheTeamComesBackWhenItsThreadsTakeTwoExecutionsToWake) {
    TeamOrSolo chooser;
    int64_t now = 0;
    Execute(chooser, &now, 100, kTeam, kSolo);
    EXPECT_GE(Execute(chooser, &now, 1000, 25 * kTeam / 10, kSolo), 900);
    // Idle again, but after the twin the team's first two executions take ten times its time (a
    // virtual machine wakes its cores slowly): a trial of the team must see past both. After a
    // second of contention the team's trials come at most 400 ms apart.
    int solos = 0, teamRun = 0;
    for (int i = 0; i < 600; ++i, now += kMs) {
        const bool solo = chooser.ChooseSolo(now);
        teamRun = solo ? 0 : teamRun + 1;
        chooser.Record(solo, solo ? kSolo : teamRun <= 2 ? 10 * kTeam : kTeam);
        solos += solo;
    }
    EXPECT_LT(chooser.TeamNs(), chooser.SoloNs());
    EXPECT_LE(solos, 400 + TeamOrSolo::kTeamTrialLength);
}

TEST(TeamOrSolo, TheFirstExecutionOfEachFormAndOfEachTrialIsNotCounted) {
    TeamOrSolo chooser;
    int64_t now = 0;
    // The team first, as without a twin; its first execution (100 ms, cold) is not counted.
    ASSERT_FALSE(chooser.ChooseSolo(now));
    chooser.Record(false, 100 * kMs);
    EXPECT_EQ(chooser.TeamNs(), 0);
    // Then the twin's early trial, whose first execution is not counted either.
    int solos = 0;
    for (int i = 0; i < 100 && solos < TeamOrSolo::kTrialLength; ++i) {
        const bool solo = chooser.ChooseSolo(now += kMs);
        chooser.Record(solo, solo ? (solos == 0 ? 100 * kMs : kSolo) : kTeam);
        solos += solo;
    }
    EXPECT_EQ(solos, TeamOrSolo::kTrialLength);
    EXPECT_EQ(chooser.TeamNs(), kTeam);
    EXPECT_EQ(chooser.SoloNs(), kSolo);
}

TEST(TeamOrSolo, OneOutlierDoesNotSwitchForms) {
    TeamOrSolo chooser;
    int64_t now = 0;
    Execute(chooser, &now, 100, kTeam, kSolo);
    Execute(chooser, &now, 1, 60 * kTeam, kSolo);  // one execution 60 times slower
    EXPECT_LT(chooser.TeamNs(), chooser.SoloNs());
    EXPECT_LE(Execute(chooser, &now, 1000, kTeam, kSolo), TeamOrSolo::kTrialLength);
}

TEST(TeamOrSolo, AWarmingUpTeamStartsNoQuickTrials) {
    // The team's first counted executions ten times slower (caches, OpenMP threads starting): its
    // average falls to its best at once, so the twin runs only its early trial and a slow one.
    TeamOrSolo chooser;
    int64_t now = 0;
    Execute(chooser, &now, 3, 10 * kTeam, kSolo);
    EXPECT_LE(Execute(chooser, &now, 1000, kTeam, kSolo), 2 * TeamOrSolo::kTrialLength);
    EXPECT_LT(chooser.TeamNs(), chooser.SoloNs());
}

TEST(TeamOrSolo, PolicyFromTheEnvironmentCanBeOverriddenByTests) {
    const ContentionPolicy before = CpuContentionPolicy();
    {
        const ScopedCpuContentionPolicyForTesting alwaysTeam(ContentionPolicy::AlwaysTeam);
        EXPECT_EQ(CpuContentionPolicy(), ContentionPolicy::AlwaysTeam);
    }
    EXPECT_EQ(CpuContentionPolicy(), before);
}

}  // namespace
}  // namespace freedml::dml::cpu::test
