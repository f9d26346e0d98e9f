"""The model card's words for a run's training data (sr release), from the run's recorded options."""
import pytest

from sr.commands.release import training_data


def test_licensed_run_names_the_manifest_split_and_its_sampling():
    text = training_data({'sets': 'licensed', 'hr_scales': '0.5,0.333,0.25', 'flat_below': 3.0, 'flat_keep': 0.25})
    from sr.manifest import read_manifest
    train = sum(1 for r in read_manifest() if r['split'] == 'train')
    assert text.startswith(f'the licensed photos of `training/data/licensed-photos.tsv`, split `train`: {train} photos (')
    assert 'no research set' in text and 'T91 (91)' not in text
    assert text.endswith('Every image at 0.5, 0.333, 0.25 of its size (`--hr-scales`, sr/data.py). Crops flatter than '
                         '3.0 luma levels per pixel kept with probability 0.25 (`--flat-below`, `--flat-keep`).')


def test_the_holdout_is_named_for_what_it_did():
    licensed = {'sets': 'licensed'}
    assert 'split `holdout` for checkpoint selection;' in training_data(licensed)
    assert ('split `holdout` for watching the run (the shipped checkpoint is its last);'
            in training_data(licensed, selected=False))
    assert 'held out for watching the run (the shipped checkpoint is its last);' in training_data(
        {'sets': 'T91,BSD200'}, selected=False)


def test_research_run_says_so_and_old_configs_need_no_new_keys():
    text = training_data({'sets': 'T91,BSD200'})
    assert text.startswith('T91 (91) + BSD200 (199') and 'not licensed for commercial use' in text
    assert text.endswith('never Set5 / Set14 / BSD100.')


def test_a_mix_of_sets_has_no_card_wording_yet():
    with pytest.raises(SystemExit):
        training_data({'sets': 'T91,licensed'})


def test_int8_card_names_what_the_qat_run_tuned_on():
    from sr.commands.int8_card import tuning_data
    pyramid = tuning_data({'parent_sets': 'licensed', 'parent_sampling': {'hr_scales': [0.5, 0.333, 0.25],
                                                                          'flat_below': 0.0, 'flat_keep': 1.0,
                                                                          'val': 'licensed-holdout'}})
    assert pyramid == training_data({'sets': 'licensed', 'hr_scales': '0.5,0.333,0.25'})
    # a QAT run saved before sr qat recorded its parent's sets and sampling: T91 + BSD200 at full size
    assert tuning_data({}) == training_data({'sets': 'T91,BSD200'})


def test_card_command_names_the_data_options_a_run_used():
    from sr.commands.release import sampling_options
    assert sampling_options({'sets': 'T91,BSD200'}) == ''
    assert sampling_options({'sets': 'licensed', 'hr_scales': '0.5,0.333,0.25', 'flat_below': 0.0, 'screen': 0.0}) == \
        ' --sets licensed --hr-scales 0.5,0.333,0.25'
    assert sampling_options({'sets': 'licensed', 'hr_scales': '1', 'flat_below': 3.0, 'flat_keep': 0.25,
                             'screen': 0.1}) == ' --sets licensed --flat-below 3.0 --flat-keep 0.25 --screen 0.1'


def test_int8_dot_product_needs_it_on_every_core():
    from sr.commands.bench import int8_dot_product
    assert int8_dot_product('flags\t\t: fpu avx2 avx512_vnni\nflags\t\t: fpu avx2 avx512_vnni\n')
    assert int8_dot_product('flags : avx2 avx_vnni\n')
    assert not int8_dot_product('flags : fpu avx2 avx512f\n')  # AVX2 / AVX512F alone: MLAS's u8s8 sums saturate
    assert not int8_dot_product('flags : avx512_vnni\nflags : avx2\n')
    assert not int8_dot_product('')
