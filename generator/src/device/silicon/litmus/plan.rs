//! Which thread of a launch runs which test thread of which instance: the role
//! table, drawn afresh for every launch from a seeded generator ("thread
//! randomization", Alglave et al., ASPLOS 2015; GPUHarbor's shuffled workgroups).
//!
//! Every warp runs one test thread for 32 instances, one a lane, so that test
//! threads placed in one CTA run in different warps of it. The warps are handed out
//! in rounds: each round deals the launch's clusters at random to groups of 32
//! instances, one cluster for each of the test's clusters; in its cluster, each of
//! the test's CTAs gets a CTA at random, and each of that CTA's test threads the next
//! warp of a per-CTA random order; each warp its own random order of lanes over the
//! group's instances. A round gives each CTA at most as many warps as the test's
//! fullest CTA has threads, so a CTA with `test_warps` warps for tests takes
//! `test_warps / that` rounds. Every warp no round takes stresses memory.
//!
//! A test whose threads share one warp (`same_warp`) packs the `n` test threads of
//! `32 / n` instances (rounded down) into one warp instead: a group is that many
//! instances, it takes one warp of a CTA (the next of that CTA's random order), and
//! the warp's lanes, in a random order of their own, go to instance 0's threads
//! 0..n, then instance 1's, and so on. The `32 mod n` lanes left over stress memory
//! as a warp no round takes does. Rounds then give each CTA one warp each, so a CTA
//! takes `test_warps` rounds.

use rand::seq::SliceRandom;
use rand::Rng;

use ptxvec_oracle::model::Litmus;

use super::emit::{STRESS, THREAD_BITS};

/// A test's threads, by cluster and CTA: `clusters[c][a]` are the test threads in
/// CTA `a` of cluster `c`, both numbered in the order of their places; and whether
/// they share one warp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The threads by cluster, then CTA.
    pub clusters: Vec<Vec<Vec<u32>>>,
    /// All the threads run in one warp, each on a lane of its own.
    pub one_warp: bool,
}

impl Placement {
    /// The placement of `test`'s threads, in one warp if `one_warp`; an error where
    /// they are on more than one GPU (one is all a launch has), or `one_warp` and
    /// they are not all in one CTA.
    pub fn of(test: &Litmus, one_warp: bool) -> Result<Placement, String> {
        if test.threads.iter().any(|t| t.place.gpu != test.threads[0].place.gpu) {
            return Err("the threads are on more than one GPU".into());
        }
        if one_warp && test.threads.iter().any(|t| t.place != test.threads[0].place) {
            return Err("threads of one warp must be placed in one CTA".into());
        }
        let mut places: Vec<(u8, u8)> = test.threads.iter().map(|t| (t.place.cluster, t.place.cta)).collect();
        places.sort_unstable();
        places.dedup();
        let mut clusters: Vec<Vec<Vec<u32>>> = Vec::new();
        let mut last = None;
        for &(c, a) in &places {
            if last != Some(c) {
                clusters.push(Vec::new());
                last = Some(c);
            }
            let threads = (0u32..)
                .zip(&test.threads)
                .filter(|(_, t)| (t.place.cluster, t.place.cta) == (c, a))
                .map(|(i, _)| i)
                .collect();
            if let Some(cl) = clusters.last_mut() {
                cl.push(threads);
            }
        }
        Ok(Placement { clusters, one_warp })
    }

    /// CTAs per cluster of the launch: the most the test puts in one cluster.
    pub fn cluster_size(&self) -> u32 {
        self.clusters.iter().map(Vec::len).max().unwrap_or(1) as u32
    }

    /// The most test threads in one CTA.
    pub fn fullest_cta(&self) -> u32 {
        self.clusters.iter().flatten().map(Vec::len).max().unwrap_or(1) as u32
    }

    /// The warps one instance group takes of its fullest CTA: one in one warp, else
    /// one a thread.
    pub fn warps_per_group(&self) -> u32 {
        if self.one_warp {
            1
        } else {
            self.fullest_cta()
        }
    }

    /// Instances in a group: 32, one a lane; in one warp, as many as the warp's
    /// lanes hold whole (`32 / n` for `n` threads).
    pub fn per_group(&self) -> u32 {
        if self.one_warp {
            32 / self.fullest_cta().clamp(1, 32)
        } else {
            32
        }
    }
}

/// The shape of a launch: CTAs (a multiple of the cluster size), warps per CTA,
/// and how many of each CTA's warps rounds may give to tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// CTAs in the grid.
    pub ctas: u32,
    /// Warps per CTA.
    pub warps: u32,
    /// Warps per CTA that may run tests; the rest stress memory.
    pub test_warps: u32,
}

impl Grid {
    /// Threads in the grid.
    pub fn threads(&self) -> usize {
        self.ctas as usize * self.warps as usize * 32
    }

    /// Rounds of instance groups for `p`, and groups per round.
    fn rounds(&self, p: &Placement) -> (u32, u32) {
        let k = p.cluster_size().max(1);
        let clusters = self.ctas / k;
        let per_round = clusters / p.clusters.len().max(1) as u32;
        (self.test_warps.min(self.warps) / p.warps_per_group().max(1), per_round)
    }

    /// Instances one launch runs for `p`: [`Placement::per_group`] for every group
    /// of every round.
    pub fn instances(&self, p: &Placement) -> u32 {
        let (rounds, per_round) = self.rounds(p);
        rounds * per_round * p.per_group()
    }
}

/// A role table for one launch of `grid` (see [`super::emit`]): every instance
/// below [`Grid::instances`] gets each of its test threads exactly once.
pub fn roles(p: &Placement, grid: &Grid, rng: &mut impl Rng) -> Vec<u32> {
    let mut roles = vec![STRESS; grid.threads()];
    let k = p.cluster_size().max(1);
    let launch_clusters = grid.ctas / k;
    // Each CTA's warps in a random order, dealt from the front.
    let mut free: Vec<(Vec<u32>, usize)> = (0..grid.ctas)
        .map(|_| {
            let mut w: Vec<u32> = (0..grid.warps).collect();
            w.shuffle(rng);
            (w, 0)
        })
        .collect();
    let (rounds, per_round) = grid.rounds(p);
    let per_group = p.per_group();
    let mut group = 0u32;
    let needed = p.clusters.len();
    for _ in 0..rounds {
        let mut order: Vec<u32> = (0..launch_clusters).collect();
        order.shuffle(rng);
        for chunk in order.chunks_exact(needed).take(per_round as usize) {
            for (test_cluster, &lc) in p.clusters.iter().zip(chunk) {
                let mut ranks: Vec<u32> = (0..k).collect();
                ranks.shuffle(rng);
                for (threads, &rank) in test_cluster.iter().zip(&ranks) {
                    let cta = (lc * k + rank) as usize;
                    if p.one_warp {
                        let (warps, next) = &mut free[cta];
                        let warp = warps[*next];
                        *next += 1;
                        let mut lanes: Vec<u32> = (0..32).collect();
                        lanes.shuffle(rng);
                        let base = (cta * grid.warps as usize + warp as usize) * 32;
                        let n = threads.len();
                        for (slot, &lane) in lanes.iter().take(per_group as usize * n).enumerate() {
                            let (i, t) = (slot / n, threads[slot % n]);
                            roles[base + lane as usize] = ((group * per_group + i as u32) << THREAD_BITS) | t;
                        }
                        continue;
                    }
                    for &t in threads {
                        let (warps, next) = &mut free[cta];
                        let warp = warps[*next];
                        *next += 1;
                        let mut lanes: Vec<u32> = (0..32).collect();
                        lanes.shuffle(rng);
                        let base = (cta * grid.warps as usize + warp as usize) * 32;
                        for (lane, &i) in lanes.iter().enumerate() {
                            roles[base + lane] = ((group * per_group + i) << THREAD_BITS) | t;
                        }
                    }
                }
            }
            group += 1;
        }
    }
    roles
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxvec_oracle::model::{Event, Loc, Place, Reg, Thread};
    use rand::SeedableRng;
    use std::collections::BTreeMap;

    fn test_at(places: &[Place]) -> Litmus {
        let threads = places
            .iter()
            .map(|&place| Thread { place, events: vec![Event::ld_weak(Loc(0), Reg(0))] })
            .collect();
        Litmus { threads }
    }

    /// Where each test thread of each instance ran: (CTA, warp, lane).
    fn positions(roles: &[u32], grid: &Grid) -> BTreeMap<(u32, u32), (u32, u32, u32)> {
        let mut at = BTreeMap::new();
        for (g, &r) in roles.iter().enumerate().filter(|(_, &r)| r != STRESS) {
            let g = g as u32;
            let pos = (g / (grid.warps * 32), (g / 32) % grid.warps, g % 32);
            assert!(at.insert((r >> THREAD_BITS, r & 7), pos).is_none(), "role {r:#x} twice");
        }
        at
    }

    /// Every instance runs each test thread once, and where they run honours the
    /// test's places: one CTA and different warps for threads of one CTA; one
    /// warp and different lanes for threads of one warp; one cluster and different
    /// CTAs for CTAs of one cluster; different clusters otherwise. Each table is a
    /// structural fact checked of every launch drawn.
    #[test]
    fn every_instance_runs_each_thread_once_where_its_place_says() {
        let table: [(&[Place], bool); 9] = [
            (&[Place::cta(0, 0), Place::cta(0, 0)], false),
            (&[Place::cta(0, 0), Place::cta(0, 1)], false),
            (&[Place::cta(0, 0), Place::cta(1, 0)], false),
            (&[Place::cta(0, 0), Place::cta(0, 1), Place::cta(0, 2), Place::cta(0, 3)], false),
            (&[Place::cta(0, 0), Place::cta(0, 0), Place::cta(0, 1), Place::cta(2, 0)], false),
            (&[Place::cta(0, 0), Place::cta(0, 0)], true),
            (&[Place::cta(0, 0), Place::cta(0, 0), Place::cta(0, 0)], true),
            (&[Place::cta(0, 0); 4], true),
            (&[Place::cta(0, 0); 8], true),
        ];
        for (places, one_warp) in table {
            let test = test_at(places);
            let p = Placement::of(&test, one_warp).unwrap();
            let k = p.cluster_size();
            let grid = Grid { ctas: 24 * k, warps: 8, test_warps: 6 };
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
            for _ in 0..3 {
                let roles = roles(&p, &grid, &mut rng);
                let at = positions(&roles, &grid);
                let n = grid.instances(&p);
                if one_warp {
                    // 32 / threads instances a warp, one warp of each of 24 CTAs
                    // a round, six rounds.
                    assert_eq!(n, 6 * 24 * (32 / places.len() as u32), "{places:?}");
                }
                assert!(n > 0, "{places:?}");
                assert_eq!(at.len(), n as usize * places.len(), "{places:?}");
                for i in 0..n {
                    for (a, pa) in places.iter().enumerate() {
                        for (b, pb) in places.iter().enumerate().filter(|&(b, _)| b > a) {
                            let (ca, wa, la) = at[&(i, a as u32)];
                            let (cb, wb, lb) = at[&(i, b as u32)];
                            let same_cluster = ca / k == cb / k;
                            let ok = if one_warp {
                                ca == cb && wa == wb && la != lb
                            } else if pa == pb {
                                ca == cb && wa != wb
                            } else if pa.cluster == pb.cluster {
                                same_cluster && ca != cb
                            } else {
                                !same_cluster
                            };
                            assert!(ok, "{places:?}: instance {i}, threads {a} and {b} at {:?} {:?}", at[&(i, a as u32)], at[&(i, b as u32)]);
                        }
                    }
                }
            }
        }
    }

    /// The lanes of a one-warp test are dealt by the seed: two launches of one
    /// stream put instance 0's thread 0 on different lanes somewhere, and every
    /// lane of a 4-thread test's warp is taken.
    #[test]
    fn one_warp_lanes_are_drawn_and_fill_the_warp() {
        let test = test_at(&[Place::cta(0, 0); 4]);
        let p = Placement::of(&test, true).unwrap();
        let grid = Grid { ctas: 4, warps: 8, test_warps: 6 };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let first = roles(&p, &grid, &mut rng);
        let second = roles(&p, &grid, &mut rng);
        assert_ne!(first, second);
        let taken_warps = first.chunks(32).filter(|w| w.iter().any(|&r| r != STRESS)).count();
        assert_eq!(taken_warps, 4 * 6);
        assert!(first.chunks(32).all(|w| w.iter().all(|&r| r != STRESS) || w.iter().all(|&r| r == STRESS)));
    }

    #[test]
    fn one_warp_needs_one_cta() {
        assert!(Placement::of(&test_at(&[Place::cta(0, 0), Place::cta(0, 1)]), true).is_err());
    }

    #[test]
    fn a_seed_draws_one_table_and_another_seed_another() {
        let test = test_at(&[Place::cta(0, 0), Place::cta(1, 0)]);
        let p = Placement::of(&test, false).unwrap();
        let grid = Grid { ctas: 16, warps: 8, test_warps: 6 };
        let draw = |seed| roles(&p, &grid, &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        assert_eq!(draw(1), draw(1));
        assert_ne!(draw(1), draw(2));
    }

    #[test]
    fn threads_on_two_gpus_are_refused() {
        let test = test_at(&[Place::cta(0, 0), Place { gpu: 1, cluster: 0, cta: 0 }]);
        assert!(Placement::of(&test, false).is_err());
    }
}
