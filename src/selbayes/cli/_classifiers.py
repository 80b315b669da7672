"""The classifiers of the command line: those ``selbayes fit`` makes (:data:`MODELS`), those
``selbayes predict`` reads (:data:`SAVED_CLASSES`), and the attributes a fit made by
``selbayes fit`` carries in its file."""

from __future__ import annotations

MODELS = {
    "gaussian": ("selbayes.estimators", "HierarchicalGaussianClassifier"),
    "naive-bayes": ("selbayes.estimators", "BinaryNaiveBayesClassifier"),
    "mixture": ("selbayes.estimators", "BinaryMixtureClassifier"),
}
#: every classifier whose save() ``selbayes predict`` reads: the three above, which ``fit``
#: makes with ``--no-linear-stack``, and the two stacks (``fit`` makes LinearStackedClassifier
#: by default; StackedGaussianClassifier is fitted from Python only)
SAVED_CLASSES = (*MODELS.values(), ("selbayes.estimators", "StackedGaussianClassifier"),
                 ("selbayes.estimators", "LinearStackedClassifier"))
_FEATURES_ATTR = "selbayes_cli_feature_names"
_MODEL_ATTR = "selbayes_cli_model"

# The transform of `fit --transform` is saved under the attribute the classifiers' load()
# reads (selbayes.estimators._persistence.INPUT_TRANSFORM_ATTR), to warn a Python user.
_TRANSFORM_ATTR = "selbayes_cli_transform"
