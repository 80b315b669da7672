"""Apply the modelling wiring to the (contract-structured) gaussian_classifier.py."""
import re, sys
p = "src/selbayes/gaussian_classifier.py"
s = open(p).read()

def rep(old, new, count=1):
    global s
    if old not in s:
        sys.exit(f"pattern not found:\n{old[:200]}")
    s = s.replace(old, new, count)

rep("from .transforms import Decorrelation\n", "")
def rep_re(pattern, new):
    global s
    m = re.search(pattern, s, flags=re.S)
    if not m:
        sys.exit(f"regex not found: {pattern}")
    s = s[:m.start()] + new + s[m.end():]

rep_re(r"    k : int or \"all\", optional\n.*?(?=\n    threshold :)", '    k : int, "auto" or "all", default "auto"\n        Number of features to keep (1 <= k < p); "auto" chooses it inside ``fit`` by inner\n        stratified cross-validated log score over ``k_grid``\n        (:func:`selbayes.model_selection.choose_k`, stored as ``k_choice_``); "all" uses\n        every feature (nothing is omitted, so there is nothing to correct). ``threshold``\n        overrides ``k``.')
rep_re(r"    decorrelate : float or None, default None\n.*?(?=\n    draws, tune)", '    decorrelate : float, "auto" or None, default None\n        If a number lambda, whiten all p features with the shrunk pooled within-class covariance\n        (Li 2009, eq 12) fitted on the training data before selecting; "auto" chooses lambda\n        from ``decorrelate_grid`` (None included) together with k.\n    decorrelation_method : {"symmetric", "cholesky"}, default "symmetric"\n        "symmetric": low-rank whitening with no p x p matrix (any p); "cholesky": the paper\'s\n        dense Cholesky whitening (p <= 20 000). See :class:`selbayes.transforms.Decorrelation`.\n    standardize : bool, default True\n        Centre every feature and scale it by its pooled within-class standard deviation\n        (training statistics) before anything else, so predictions do not depend on the units\n        of X. The F statistics, hence the selection and its adjustment, are unchanged by this.\n        False fits the model to X in its own units (as in the paper).\n    temperature : float or "auto", default "auto"\n        Predictive temperature T: P(g | x) proportional to pi_g p(x | g, data)^(1/T), a\n        correction for evidence counted several times by correlated features\n        (:func:`selbayes.model_selection.temper_log_proba`); 1 is the model\'s own predictive;\n        "auto" chooses T with k by inner cross-validated log score.\n    k_grid, decorrelate_grid, temperature_grid : sequence, optional\n        Candidates for the "auto" choices (defaults in :mod:`selbayes.model_selection`).\n    inner_cv : int, default 5\n        Inner folds of the "auto" choices.\n    label_noise : float or "auto", default "auto"\n        Probability eps that a case\'s label is unrelated to its features: the predictive is\n        (1 - eps) P(g | x) + eps pi_g (:func:`selbayes.model_selection.label_noise_log_proba`),\n        which bounds the loss of any one case; "auto" is 1 / (n + 2); 0 turns it off.')
rep('''    n_features_in_ : int
''', '''    n_features_in_ : int
    k_, temperature_, decorrelate_ : int, float, float or None
        The values used (chosen or as given).
    k_choice_ : selbayes.model_selection.KChoice or None
        The inner cross-validation curve when something was "auto".
''')
# __init__ signature and body
rep('''    def __init__(self, k: int | None = 10, threshold: float | None = None,
                 correct_selection: bool = True, priors=None, decorrelate: float | None = None,''',
'''    def __init__(self, k: int | str | None = "auto", threshold: float | None = None,
                 correct_selection: bool = True, priors=None,
                 decorrelate: float | str | None = None,
                 decorrelation_method: str = "symmetric", standardize: bool = True,
                 temperature: float | str = "auto", k_grid=None, decorrelate_grid=None,
                 temperature_grid=None, inner_cv: int = 5,
                 label_noise: float | str = "auto",''')
rep('''        self.decorrelate = decorrelate
''', '''        self.decorrelate = decorrelate
        self.decorrelation_method = decorrelation_method
        self.standardize = standardize
        self.temperature = temperature
        self.k_grid = k_grid
        self.decorrelate_grid = decorrelate_grid
        self.temperature_grid = temperature_grid
        self.inner_cv = inner_cv
        self.label_noise = label_noise
''')
rep('''        "k": [Interval(Integral, 1, None, closed="left"), StrOptions({"all"}), None],''',
    '''        "k": [Interval(Integral, 1, None, closed="left"), StrOptions({"all", "auto"}), None],''')
rep('''        "decorrelate": [Interval(Real, 0, None, closed="left"), None],''',
'''        "decorrelate": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"}), None],
        "decorrelation_method": [StrOptions({"symmetric", "cholesky"})],
        "standardize": ["boolean"],
        "temperature": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "k_grid": [list, tuple, np.ndarray, None],
        "decorrelate_grid": [list, tuple, np.ndarray, None],
        "temperature_grid": [list, tuple, np.ndarray, None],
        "inner_cv": [Interval(Integral, 2, None, closed="left")],
        "label_noise": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],''')

# _prepare_features
start = s.index("    def _prepare_features(self, X, y_index, classes) -> np.ndarray:")
end = s.index("    def _fit_selected(")
s = s[:start] + """    def _prepare_features(self, X, y_index, classes) -> np.ndarray:
        \"\"\"Resolve the "auto" settings (inner CV on the training data only), then standardise
        and decorrelate all p features with training statistics.\"\"\"
        from .model_selection import (
            AffineFeatures,
            choose_k,
            default_label_noise,
            prepare_features,
            sparse_within_scale,
        )

        self.sampler_used_ = require_sampler(self.sampler)
        self.k_, self.temperature_, self.decorrelate_ = self.k, self.temperature, self.decorrelate
        self.k_choice_ = None
        self.label_noise_ = (default_label_noise(X.shape[0]) if self.label_noise == "auto"
                             else float(self.label_noise))
        sparse = hasattr(X, "toarray")
        autos = [self.k == "auto" and self.threshold is None, self.temperature == "auto",
                 self.decorrelate == "auto"]
        if any(autos):
            dec_grid = None
            if self.decorrelate == "auto":
                dec_grid = (list(self.decorrelate_grid) if self.decorrelate_grid is not None
                            else [None, 10.0])
            k_grid = self.k_grid if autos[0] else [
                self.k if isinstance(self.k, Integral) else X.shape[1] - 1]
            self.k_choice_ = choose_k(
                self, X.toarray() if sparse else X, classes[y_index], grid=k_grid,
                decorrelate_grid=dec_grid,
                temperature_grid=self.temperature_grid if autos[1] else None,
                cv=self.inner_cv, random_state=self.random_state)
            if autos[0]:
                self.k_ = self.k_choice_.k
            if autos[1]:
                self.temperature_ = self.k_choice_.temperature
            if autos[2]:
                self.decorrelate_ = self.k_choice_.decorrelate
        p = X.shape[1]
        if sparse and self.decorrelate_ is None:
            # Centring would make sparse input dense: scale only (the F statistics, hence the
            # selection, are unchanged either way).
            scale = (sparse_within_scale(X, y_index, len(classes)) if self.standardize
                     else np.ones(p))
            self._features = AffineFeatures(np.zeros(p), scale, None)
            from scipy import sparse as sp

            return (X @ sp.diags(1.0 / scale)).tocsc()
        X = X.toarray() if sparse else X
        Xp, self._features = prepare_features(
            X, y_index, len(classes), standardize=self.standardize,
            decorrelate=self.decorrelate_, method=self.decorrelation_method)
        return Xp

    def _resolve_selection(self, X, y_index, classes) -> Selection:
        if self.k == "auto" and self.threshold is None:
            from .selection import select_features

            k = min(int(self.k_), X.shape[1] - 1)
            return select_features(X, classes[y_index], k=k, statistic="f")
        return super()._resolve_selection(X, y_index, classes)

""" + s[end:]
rep('''        self.transform_rows_ = (None if self._transform is None
                                else self._transform.rows(selection.indices))
        del self._transform
''', '''        self.feature_center_, self.feature_scale_, self.transform_rows_ = (
            self._features.selected_affine(selection.indices))
        del self._features
''')
rep('''    def _extra_constant_data(self) -> dict:
        import xarray as xr

        if self.transform_rows_ is None:
            return {}
        return {"transform_rows": xr.DataArray(self.transform_rows_,
                                               dims=["feature", "all_features"])}

    def _select_test_columns(self, X) -> np.ndarray:
        if self.transform_rows_ is not None:
            return np.asarray(X @ self.transform_rows_.T)
        return super()._select_test_columns(X)
''', '''    def _extra_attrs(self) -> dict:
        out = {"selbayes_k_used": int(self.selection_.n_selected),
               "selbayes_temperature": float(self.temperature_),
               "selbayes_label_noise": float(self.label_noise_),
               "selbayes_decorrelate": (-1.0 if self.decorrelate_ is None
                                        else float(self.decorrelate_))}
        if self.k_choice_ is not None:
            out["selbayes_k_choice_criterion"] = self.k_choice_.criterion
        return out

    def _extra_constant_data(self) -> dict:
        import xarray as xr

        out = {"feature_center": xr.DataArray(self.feature_center_, dims=["feature"]),
               "feature_scale": xr.DataArray(self.feature_scale_, dims=["feature"])}
        if self.transform_rows_ is not None:
            out["transform_rows"] = xr.DataArray(self.transform_rows_,
                                                 dims=["feature", "all_features"])
        if self.k_choice_ is not None:
            ch = self.k_choice_
            out["k_choice_score"] = xr.DataArray(ch.score, dims=["k_candidate"])
            out["k_choice_se"] = xr.DataArray(ch.se, dims=["k_candidate"])
            out["k_choice_k"] = xr.DataArray([g[0] for g in ch.grid], dims=["k_candidate"])
            out["k_choice_temperature"] = xr.DataArray([g[2] for g in ch.grid],
                                                       dims=["k_candidate"])
            out["k_choice_decorrelate"] = xr.DataArray(
                [-1.0 if g[1] is None else g[1] for g in ch.grid], dims=["k_candidate"])
        return out

    def _select_test_columns(self, X) -> np.ndarray:
        """The same affine map as in training: z = (x - center) / scale on the selected
        columns, or the stored rows of the (standardised) decorrelating transform."""
        if self.transform_rows_ is not None:
            Z = np.asarray(X @ self.transform_rows_.T)
        else:
            Z = super()._select_test_columns(X)
        return (Z - self.feature_center_) / self.feature_scale_
''')
rep('''        lp = class_log_prior(self.selection_.class_counts, self._prior_object().c)
        return predictive_log_proba(X_sel, self.pred_mean_, self.pred_precision_, lp)''',
'''        lp = class_log_prior(self.selection_.class_counts, self._prior_object().c)
        out = predictive_log_proba(X_sel, self.pred_mean_, self.pred_precision_, lp)
        return label_noise_log_proba(temper_log_proba(out, lp, self.temperature_), lp,
                                     self.label_noise_)''')
rep('''        from .models.gaussian import class_log_prior, predictive_log_proba
''', '''        from .model_selection import label_noise_log_proba, temper_log_proba
        from .models.gaussian import class_log_prior, predictive_log_proba
''')
rep('''        self.transform_rows_ = cd["transform_rows"].values if "transform_rows" in cd else None
''', '''        self.transform_rows_ = cd["transform_rows"].values if "transform_rows" in cd else None
        k = self.selection_.n_selected
        self.feature_center_ = (cd["feature_center"].values if "feature_center" in cd
                                else np.zeros(k))
        self.feature_scale_ = (cd["feature_scale"].values if "feature_scale" in cd
                               else np.ones(k))
        attrs = tree.attrs
        self.temperature_ = float(attrs.get("selbayes_temperature", 1.0))
        self.label_noise_ = float(attrs.get("selbayes_label_noise", 0.0))
        dec = float(attrs.get("selbayes_decorrelate", -1.0))
        self.decorrelate_ = None if dec < 0 else dec
        self.k_ = int(attrs.get("selbayes_k_used", k))
        self.k_choice_ = None
        if "k_choice_score" in cd:
            from .model_selection import KChoice

            grid = [(int(a), None if b < 0 else float(b), float(c)) for a, b, c in zip(
                cd["k_choice_k"].values, cd["k_choice_decorrelate"].values,
                cd["k_choice_temperature"].values, strict=True)]
            self.k_choice_ = KChoice(
                k=self.k_, decorrelate=self.decorrelate_, temperature=self.temperature_,
                grid=grid, score=cd["k_choice_score"].values, se=cd["k_choice_se"].values,
                criterion=str(attrs.get("selbayes_k_choice_criterion", "")),
                n_splits=int(self.inner_cv))
''')
open(p, "w").write(s)
print("ok")
