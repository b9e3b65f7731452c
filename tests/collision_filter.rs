//! Collision filtering: bodies joined by a joint do not collide unless the joint asks
//! (`collide: true`); bodies in groups the model lists in `no_contact` never collide.

use std::path::Path;

/// Two overlapping balls (radius 0.1 m, centres 0.15 m apart) without gravity, with `extra`
/// model text: the contact points of the first step and how far the balls moved in 0.1 s (m).
fn overlapping_balls(groups: (&str, &str), extra: &str) -> (usize, f64) {
    let text = format!(
        r#"Model(
    scene: (dimension: Two, gravity: (0, 0)),
    time: (dt: 0.01, end: 1.0),
    bodies: [
        (name: "a", shape: Ball(radius: 0.1), groups: [{}]),
        (name: "b", shape: Ball(radius: 0.1), position: (0.15, 0), groups: [{}]),
    ],
    {extra}
)"#,
        groups.0, groups.1
    );
    let m = vcsim::parse_str(Path::new("balls.ron"), &text).expect("the model loads");
    let mut w = vcsim::build_world(&m).expect("the model builds");
    let x0 = w.bodies[1].com().x - w.bodies[0].com().x;
    w.step();
    let contacts = w.contacts().len();
    for _ in 1..10 {
        w.step();
    }
    let moved = (w.bodies[1].com().x - w.bodies[0].com().x - x0).abs();
    (contacts, moved)
}

#[test]
fn overlapping_bodies_collide_without_a_filter() {
    let (contacts, moved) = overlapping_balls(("", ""), "");
    assert!(contacts > 0);
    assert!(moved > 1e-3, "the overlap pushes them apart: {moved} m");
}

#[test]
fn groups_kept_apart_never_collide() {
    let chain = r#""chain""#;
    let (contacts, moved) =
        overlapping_balls((chain, chain), r#"no_contact: [("chain", "chain")],"#);
    assert_eq!(contacts, 0);
    assert_eq!(moved, 0.0);
    // Across two groups, in either order; a pair that does not match leaves the contact.
    let two = (chain, r#""floor", "chain""#);
    let (contacts, _) = overlapping_balls(two, r#"no_contact: [("floor", "chain")],"#);
    assert_eq!(contacts, 0);
    let two = (chain, r#""floor""#);
    let (contacts, _) = overlapping_balls(two, r#"no_contact: [("floor", "floor")],"#);
    assert!(
        contacts > 0,
        "(floor, floor) must not filter a chain–floor pair"
    );
}

#[test]
fn joined_bodies_collide_only_when_the_joint_asks() {
    let joint = |collide: bool| {
        format!(
            r#"joints: [(name: "j", kind: Spherical, body1: "a", body2: "b", anchor: (0.075, 0), collide: {collide})],"#
        )
    };
    let (contacts, _) = overlapping_balls(("", ""), &joint(false));
    assert_eq!(contacts, 0);
    let (contacts, _) = overlapping_balls(("", ""), &joint(true));
    assert!(contacts > 0);
}
