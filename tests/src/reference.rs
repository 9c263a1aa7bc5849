//! An independent, obviously-correct reference implementation of the contract.
