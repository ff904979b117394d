"""The data-model table: how a value of an extension type is represented.

numba's extension API gives a new type class its representation with
``@register_model(MyType) class MyModel(models.StructModel)``.  This module is the
table behind that decorator (numba's ``DataModelManager``): type class -> model
class, looked up along the type's MRO, one model instance per type.  The model
classes themselves (:mod:`cudalite.nvvm.extending.models`) build LLVM types and so
live in the backend; core keeps only the table, which the kernel ABI
(:mod:`cudalite.core.abi`) asks how a struct-model value is flattened into kernel
parameters: a model with ``flat_members()`` (a struct) is its member types in order.

The table is filled by decorators when an extension module is imported, like the
typing registry, and read afterwards; a model instance is made on first lookup of
its type (under a lock: lookups may come from several compiling threads).
"""

from __future__ import annotations

import threading

__all__ = ["DataModels", "data_models"]


class DataModels:
    """Type class -> model class; :meth:`lookup` gives a type's model instance."""

    def __init__(self):
        self._classes: dict = {}  # type class -> model class
        self._models: dict = {}  # type -> model instance
        self._lock = threading.Lock()

    def register(self, type_class, model_class):
        """Represent values of ``type_class`` (and its subclasses) with ``model_class``
        (called as ``model_class(self, fe_type)``)."""
        if not isinstance(type_class, type):
            raise TypeError(f"register_model() takes a type class, not {type_class!r}")
        with self._lock:
            self._classes[type_class] = model_class
            self._models.clear()  # a re-registration replaces the models made so far
        return model_class

    def model_class(self, fe_type):
        """The model class registered for ``fe_type``'s class or nearest base, or None."""
        for cls in type(fe_type).__mro__:
            found = self._classes.get(cls)
            if found is not None:
                return found
        return None

    def lookup(self, fe_type):
        """The model instance of type ``fe_type``, or None when its class has none."""
        try:
            return self._models[fe_type]
        except (KeyError, TypeError):
            pass
        cls = self.model_class(fe_type)
        if cls is None:
            return None
        model = cls(self, fe_type)
        with self._lock:
            return self._models.setdefault(fe_type, model)

    def __getitem__(self, fe_type):
        """numba's ``dmm[fe_type]``: the model, or a KeyError naming the type."""
        model = self.lookup(fe_type)
        if model is None:
            raise KeyError(f"no data model registered for {fe_type} ({type(fe_type).__name__}): "
                           "use @register_model")
        return model

    def __contains__(self, fe_type) -> bool:
        return self.model_class(fe_type) is not None


#: The one table (``register_model`` fills it; the ABI and the backend read it).
data_models = DataModels()
