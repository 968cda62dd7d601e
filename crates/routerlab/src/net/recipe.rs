//! Recipes: what a topology spec holds for a part built when the network is (a port stage, a
//! forwarding policy), made from any parameters that can build one. The built-in ones are
//! gathered above the core (`mechanisms`); the core sees only the traits.
//!
//! A recipe is shared (cloned with the spec), printed by its parameters and compared by their
//! `Debug` form, which for numbers is exact; [`Recipe::params`] gives the parameters back by
//! their type.

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

/// Parameters a recipe can be made from: any `Debug` type (implemented for every such type).
pub trait Params: Any + Debug + Send + Sync {
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any + Debug + Send + Sync> Params for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Parameters behind a builder trait `B` (`dyn BuildStage`, `dyn BuildNextHop`).
pub struct Recipe<B: ?Sized + Params>(pub(crate) Arc<B>);

impl<B: ?Sized + Params> Recipe<B> {
    /// The parameters the recipe was made from, if they are a `T`.
    pub fn params<T: Any>(&self) -> Option<&T> {
        // Through the trait object: the `Arc` is itself `Any`, and would answer for itself.
        let params: &B = &self.0;
        params.as_any().downcast_ref()
    }
}

impl<B: ?Sized + Params> Clone for Recipe<B> {
    fn clone(&self) -> Self {
        Recipe(self.0.clone())
    }
}

impl<B: ?Sized + Params> Debug for Recipe<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<B: ?Sized + Params> PartialEq for Recipe<B> {
    fn eq(&self, other: &Recipe<B>) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || format!("{:?}", self.0) == format!("{:?}", other.0)
    }
}
