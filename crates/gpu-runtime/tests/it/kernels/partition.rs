//! Partition hashes and buckets: against a Rust reference, and equal keys in one bucket whatever rows surround them.

use super::{SIZES, bitmap, device};

const NULL_KEY: u64 = 0x9e37_79b9_7f4a_7c15;

fn hash64(mut key: u64) -> u64 {
    key ^= key >> 33;
    key = key.wrapping_mul(0xff51_afd7_ed55_8ccd);
    key ^= key >> 33;
    key = key.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    key ^ (key >> 33)
}

fn mix_key(hash: u64, key: u64) -> u64 {
    let mixed = key
        .wrapping_add(NULL_KEY)
        .wrapping_add(hash << 6)
        .wrapping_add(hash >> 2);
    hash64(hash ^ mixed)
}

fn text_key(text: Option<&str>) -> u64 {
    let Some(text) = text else { return NULL_KEY };
    let fnv = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    hash64(fnv ^ text.len() as u64)
}

#[test]
fn hashes_and_buckets_match_the_reference() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(41);
    for &n in SIZES {
        let words: Vec<u64> = (0..n).map(|_| rng.u64(..(n as u64 / 4).max(1))).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..5) != 0).collect();
        let texts: Vec<String> = (0..n)
            .map(|_| "é ab".chars().take(rng.usize(..5)).collect())
            .collect();
        let texts_valid: Vec<bool> = (0..n).map(|_| rng.u8(..4) != 0).collect();
        let hashes = ops.partition_hashes(n).unwrap();
        let (dw, dv) = (device.upload(&words), device.upload(&bitmap(&valid)));
        ops.partition_mix_words(&hashes, &dw, Some(&dv)).unwrap();
        let (offsets, bytes, text_validity) = device.upload_texts(&texts, &texts_valid);
        ops.partition_mix_strings(&hashes, (&offsets, &bytes, Some(&text_validity)))
            .unwrap();
        let buckets = ops.partition_buckets(&hashes, 7).unwrap();
        let expected: Vec<u64> = (0..n)
            .map(|i| {
                let word = if valid[i] { hash64(words[i]) } else { NULL_KEY };
                let text = texts_valid[i].then_some(texts[i].as_str());
                mix_key(mix_key(0, word), text_key(text))
            })
            .collect();
        assert_eq!(hashes.to_host().unwrap(), expected, "n={n}");
        let expected_buckets: Vec<u32> = expected.iter().map(|h| (h % 7) as u32).collect();
        assert_eq!(buckets.to_host().unwrap(), expected_buckets, "n={n}");
    }
}

#[test]
fn a_key_has_one_bucket_in_every_frame_and_nulls_differ_from_values() {
    let device = device();
    let ops = device.ops();
    let bucket_of = |rows: &[Option<&str>]| -> Vec<u32> {
        let texts: Vec<String> = rows.iter().map(|t| t.unwrap_or("").to_string()).collect();
        let valid: Vec<bool> = rows.iter().map(Option::is_some).collect();
        let (offsets, bytes, validity) = device.upload_texts(&texts, &valid);
        let hashes = ops.partition_hashes(rows.len()).unwrap();
        ops.partition_mix_strings(&hashes, (&offsets, &bytes, Some(&validity)))
            .unwrap();
        ops.partition_buckets(&hashes, 1 << 20)
            .unwrap()
            .to_host()
            .unwrap()
    };
    let alone = bucket_of(&[Some("key")]);
    let among = bucket_of(&[Some("a much longer text"), None, Some("key"), Some("")]);
    assert_eq!(alone[0], among[2]);
    // A null and an empty text are different keys (here, different buckets).
    assert_ne!(among[1], among[3]);
    assert!(
        ops.partition_buckets(&ops.partition_hashes(3).unwrap(), 0)
            .is_err()
    );
    let short = device.upload(&[1u64, 2]);
    let hashes = ops.partition_hashes(3).unwrap();
    assert!(ops.partition_mix_words(&hashes, &short, None).is_err());
}
